# WRONG: calls torch.seed() (which re-seeds torch nondeterministically and returns the new seed) instead of torch.initial_seed(); after torch.manual_seed(5), NumPy is seeded with a fresh random value instead of 5, so reruns differ.
# breaks: seeding.reruns_repeat_and_epochs_differ, seeding.seed_is_torch_initial_seed_modulo_2_32

### BEGIN SOLUTION seed_worker
    seed = torch.seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None:
        dataset = info.dataset
        if hasattr(dataset, "rng"):
            dataset.rng = np.random.default_rng(seed)
### END SOLUTION
