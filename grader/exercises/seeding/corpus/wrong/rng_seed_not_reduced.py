# WRONG: reduces the seed modulo 2**32 for np.random.seed (which needs it) but passes the full torch.initial_seed() to default_rng; after torch.manual_seed(2**32 + 7) ds.rng is default_rng(2**32 + 7), not default_rng(7).
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
    info = get_worker_info()
    if info is not None:
        dataset = info.dataset
        if hasattr(dataset, "rng"):
            dataset.rng = np.random.default_rng(torch.initial_seed())
### END SOLUTION
