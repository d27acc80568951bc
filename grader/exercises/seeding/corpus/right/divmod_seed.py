# RIGHT: computes the seed with divmod and uses a getattr sentinel to detect the dataset's rng.

### BEGIN SOLUTION seed_worker
    _, seed = divmod(torch.initial_seed(), 2**32)
    random.seed(seed)
    np.random.seed(seed)
    info = get_worker_info()
    missing = object()
    if info is not None and getattr(info.dataset, "rng", missing) is not missing:
        info.dataset.rng = np.random.default_rng(seed)
### END SOLUTION
