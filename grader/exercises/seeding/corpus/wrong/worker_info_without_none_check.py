# WRONG: reads get_worker_info().seed without handling None, so calling it outside a worker raises AttributeError.
# breaks: seeding.seeds_numpy_and_random_outside_workers
# witness of: test_seeding.py::test_outside_a_worker_seeds_numpy_and_random

### BEGIN SOLUTION seed_worker
    info = get_worker_info()
    seed = info.seed % 2**32
    np.random.seed(seed)
    random.seed(seed)
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(seed)
### END SOLUTION
