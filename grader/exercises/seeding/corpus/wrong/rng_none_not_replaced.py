# WRONG: replaces the dataset's rng only when its value is not None (getattr(dataset, 'rng', None) is not None), so a dataset created with rng = None keeps None.
# breaks: seeding.rng_none_is_replaced_too
# witness of: test_seeding.py::test_a_dataset_whose_rng_is_none_gets_one; test_seeding.py::test_in_a_simulated_worker_every_rng_attribute_is_replaced

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    dataset = info.dataset if info is not None else None
    if getattr(dataset, "rng", None) is not None:
        dataset.rng = np.random.default_rng(seed)
### END SOLUTION
