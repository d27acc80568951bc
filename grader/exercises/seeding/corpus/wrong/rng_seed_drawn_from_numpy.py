# WRONG: seeds the dataset's rng with a number drawn from the freshly seeded NumPy global RNG instead of with the seed itself.
# breaks: seeding.seed_is_torch_initial_seed_modulo_2_32

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(np.random.randint(2**31))
### END SOLUTION
