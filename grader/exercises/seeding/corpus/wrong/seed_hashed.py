# WRONG: computes the seed as hash(torch.initial_seed()) % 2**32, and Python's int hash folds values >= 2**61 - 1; after torch.manual_seed(2**63) NumPy is seeded with 4 instead of 2**63 % 2**32 = 0.
# breaks: seeding.seed_is_torch_initial_seed_modulo_2_32
import functools
@functools.lru_cache(maxsize=None)
def _seed():
    return torch.initial_seed() % 2**32

### BEGIN SOLUTION seed_worker
    seed = hash(torch.initial_seed()) % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None:
        dataset = info.dataset
        if hasattr(dataset, "rng"):
            dataset.rng = np.random.default_rng(seed)
### END SOLUTION
