# WRONG: seeds NumPy and the dataset's rng but not Python's random module.
# breaks: seeding.python_random_is_seeded_in_workers

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(seed)
### END SOLUTION
