# WRONG: seeds random with a number derived from seed (random.seed(np.random.RandomState(seed).randint(2**31))) instead of with seed itself; after torch.manual_seed(7) random.random() differs from the stream of random.seed(7).
# breaks: seeding.seed_is_torch_initial_seed_modulo_2_32
import functools
@functools.lru_cache(maxsize=None)
def _seed():
    return torch.initial_seed() % 2**32

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(int(np.random.RandomState(seed).randint(2**31)))
    info = get_worker_info()
    if info is not None:
        dataset = info.dataset
        if hasattr(dataset, "rng"):
            dataset.rng = np.random.default_rng(seed)
### END SOLUTION
