# RIGHT: takes the seed from get_worker_info().seed inside a worker (equal to torch.initial_seed() there) and from torch.initial_seed() outside.

### BEGIN SOLUTION seed_worker
    info = get_worker_info()
    seed = (info.seed if info is not None else torch.initial_seed()) % 2**32
    np.random.seed(seed)
    random.seed(seed)
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(seed)
### END SOLUTION
