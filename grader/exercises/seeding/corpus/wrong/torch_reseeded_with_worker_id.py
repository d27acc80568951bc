# WRONG: also calls torch.manual_seed(worker_id); after torch.manual_seed(1234); seed_worker(3), torch.initial_seed() is 3 instead of staying 1234 (so every epoch and rerun gives worker 3 the same torch stream).
# breaks: seeding.seed_is_torch_initial_seed_modulo_2_32
# witness of: test_seeding.py::test_in_simulated_workers_every_rng_is_seeded_from_the_torch_seed
import functools
@functools.lru_cache(maxsize=None)
def _seed():
    return torch.initial_seed() % 2**32

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    torch.manual_seed(worker_id)
    info = get_worker_info()
    if info is not None:
        dataset = info.dataset
        if hasattr(dataset, "rng"):
            dataset.rng = np.random.default_rng(seed)
### END SOLUTION
