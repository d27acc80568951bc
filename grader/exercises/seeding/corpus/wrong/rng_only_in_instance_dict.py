# WRONG: looks for rng in the instance's __dict__ (vars(dataset)) instead of with hasattr, so an rng the dataset's class defines is never replaced.
# breaks: seeding.class_level_rng_is_replaced_too
# witness of: test_seeding.py::test_a_dataset_whose_class_defines_rng_gets_one_of_its_own; test_seeding.py::test_in_a_simulated_worker_every_rng_attribute_is_replaced

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None and "rng" in vars(info.dataset):
        info.dataset.rng = np.random.default_rng(seed)
### END SOLUTION
