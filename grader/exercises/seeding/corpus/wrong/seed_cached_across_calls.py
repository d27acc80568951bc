# WRONG: caches the seed in a functools.lru_cache helper; torch.manual_seed(1); seed_worker(0); torch.manual_seed(2); seed_worker(0) seeds NumPy with 1 the second time instead of 2.
# breaks: seeding.seed_is_torch_initial_seed_modulo_2_32
import functools
@functools.lru_cache(maxsize=None)
def _seed():
    return torch.initial_seed() % 2**32

### BEGIN SOLUTION seed_worker
    seed = _seed()
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None:
        dataset = info.dataset
        if hasattr(dataset, "rng"):
            dataset.rng = np.random.default_rng(seed)
### END SOLUTION
