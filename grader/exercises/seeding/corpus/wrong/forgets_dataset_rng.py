# WRONG: seeds NumPy's global RNG and random but never replaces the dataset's rng, so all workers share one stream.
# breaks: seeding.dataset_rng_is_replaced_in_workers, seeding.reruns_repeat_and_epochs_differ
# witness of: test_seeding.py::test_in_workers_every_rng_is_seeded_from_the_torch_seed; lab b: workers draw different masks; lab b: epochs draw new masks; test_seeding.py::test_in_simulated_workers_every_rng_is_seeded_from_the_torch_seed

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
### END SOLUTION
