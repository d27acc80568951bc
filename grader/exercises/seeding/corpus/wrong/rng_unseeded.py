# WRONG: gives the dataset np.random.default_rng() with no seed (OS entropy), so reruns cannot repeat.
# breaks: seeding.seed_from_initial_seed, seeding.reruns_workers_epochs
# witness of: lab b: reruns identical

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng()
### END SOLUTION
