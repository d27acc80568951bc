# WRONG: seeds random and the dataset's rng but not NumPy's legacy global RNG.
# breaks: seeding.numpy_global_rng_is_seeded_in_workers

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(seed)
### END SOLUTION
