# WRONG: gives the dataset numpy.random.default_rng((worker_id, seed)) instead of default_rng(seed); the worker's ds.rng.random() after torch.manual_seed(5) differs from default_rng(5).random().
# breaks: seeding.seed_is_torch_initial_seed_modulo_2_32
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
            dataset.rng = np.random.default_rng((worker_id, seed))
### END SOLUTION
