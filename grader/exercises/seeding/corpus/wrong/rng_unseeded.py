# WRONG: gives the dataset np.random.default_rng() with no seed (OS entropy), so reruns cannot repeat.
# breaks: seeding.reruns_repeat_and_epochs_differ, seeding.seed_is_torch_initial_seed_modulo_2_32
# witness of: lab b: reruns identical

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng()
### END SOLUTION
