# WRONG: sets dataset.rng without checking that the dataset has one, adding an rng attribute to datasets that had none.
# breaks: seeding.dataset_without_rng_is_left_alone
# witness of: test_seeding.py::test_a_dataset_without_rng_gets_none; test_seeding.py::test_in_a_simulated_worker_a_dataset_without_rng_is_left_alone

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None:
        info.dataset.rng = np.random.default_rng(seed)
### END SOLUTION
