# WRONG: in a worker whose dataset has no rng it returns before seeding, so NumPy's global RNG and random keep PyTorch's own seeding there.
# breaks: seeding.numpy_global_rng_is_seeded_in_workers, seeding.python_random_is_seeded_in_workers
# witness of: test_seeding.py::test_in_a_simulated_worker_without_rng_numpy_and_random_are_seeded

### BEGIN SOLUTION seed_worker
    info = get_worker_info()
    if info is not None and not hasattr(info.dataset, "rng"):
        return  # a dataset without rng is left as it is
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    if info is not None:
        info.dataset.rng = np.random.default_rng(seed)
### END SOLUTION
