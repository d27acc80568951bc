# WRONG: replaces the dataset's rng with a legacy np.random.RandomState(seed) instead of np.random.default_rng(seed).
# breaks: seeding.dataset_rng_is_replaced_in_workers

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.RandomState(seed)
### END SOLUTION
