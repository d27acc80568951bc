# WRONG: passes torch.initial_seed() (a 64-bit value) to np.random.seed without % 2**32, which raises ValueError for large seeds.
# breaks: seeding.seed_value, seeding.numpy_global, seeding.python_random, seeding.dataset_rng_replaced, seeding.rng_none_replaced, seeding.rng_on_the_class, seeding.dataset_without_rng, seeding.reruns_workers_epochs

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed()
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(seed)
### END SOLUTION
