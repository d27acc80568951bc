# WRONG: seeds NumPy and random correctly but gives the dataset np.random.default_rng(worker_id), the same in every epoch and run.
# breaks: seeding.seed_is_torch_initial_seed_modulo_2_32

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(worker_id)
### END SOLUTION
