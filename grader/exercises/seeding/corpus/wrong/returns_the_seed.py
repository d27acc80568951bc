# WRONG: returns the seed it used, but seed_worker must return None.
# breaks: seeding.returns_none
# witness of: test_seeding.py::test_returns_none

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(seed)
    return seed
### END SOLUTION
