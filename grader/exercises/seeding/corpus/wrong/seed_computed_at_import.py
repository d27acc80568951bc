# WRONG: computes seed once at import time (a module constant); after torch.manual_seed(5); seed_worker(0), NumPy is seeded with the import-time seed instead of 5 (forked workers would all share the parent's seed).
# breaks: seeding.reruns_repeat_and_epochs_differ, seeding.seed_is_torch_initial_seed_modulo_2_32
_SEED = torch.initial_seed() % 2**32

### BEGIN SOLUTION seed_worker
    seed = _SEED
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None:
        dataset = info.dataset
        if hasattr(dataset, "rng"):
            dataset.rng = np.random.default_rng(seed)
### END SOLUTION
