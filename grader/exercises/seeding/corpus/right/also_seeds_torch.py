# RIGHT: also seeds torch with torch.manual_seed(seed) (the docstring allows it), after NumPy and random.

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    torch.manual_seed(seed)  # allowed, not required: the seed stays the same
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(seed)
### END SOLUTION
