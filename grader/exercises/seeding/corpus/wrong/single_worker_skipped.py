# WRONG: replaces the dataset's rng only when num_workers > 1 (no other worker to collide with): with one worker the pickled rng stays and repeats every epoch.
# breaks: seeding.dataset_rng_is_replaced_in_workers

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    # only several workers can share one stream
    if info is not None and info.num_workers > 1 and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(seed)
### END SOLUTION
