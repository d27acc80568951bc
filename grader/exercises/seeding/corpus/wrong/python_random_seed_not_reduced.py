# WRONG: seeds random with the full torch.initial_seed() (random accepts any int) instead of seed; after torch.manual_seed(2**32 + 7) random's stream is that of random.seed(2**32 + 7), not random.seed(7).
# breaks: seeding.python_random_is_seeded_in_workers, seeding.seed_is_torch_initial_seed_modulo_2_32
import functools
@functools.lru_cache(maxsize=None)
def _seed():
    return torch.initial_seed() % 2**32

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(torch.initial_seed())
    info = get_worker_info()
    if info is not None:
        dataset = info.dataset
        if hasattr(dataset, "rng"):
            dataset.rng = np.random.default_rng(seed)
### END SOLUTION
