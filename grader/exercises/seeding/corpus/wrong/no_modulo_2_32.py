# WRONG: passes torch.initial_seed() (a 64-bit value) to np.random.seed without % 2**32, which raises ValueError for large seeds.
# breaks: seeding.class_level_rng_is_replaced_too, seeding.dataset_rng_is_replaced_in_workers, seeding.dataset_without_rng_is_left_alone, seeding.numpy_global_rng_is_seeded_in_workers, seeding.python_random_is_seeded_in_workers, seeding.reruns_repeat_and_epochs_differ, seeding.rng_none_is_replaced_too, seeding.seed_is_torch_initial_seed_modulo_2_32

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed()
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(seed)
### END SOLUTION
