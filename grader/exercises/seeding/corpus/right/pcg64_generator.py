# RIGHT: builds the dataset's Generator explicitly as Generator(PCG64(SeedSequence(seed))) and masks the seed with & 0xFFFFFFFF.

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() & 0xFFFF_FFFF
    random.seed(seed)
    np.random.seed(seed)
    worker = get_worker_info()
    if worker is None:
        return None
    dataset = worker.dataset
    try:
        dataset.rng
    except AttributeError:
        return None
    dataset.rng = np.random.Generator(np.random.PCG64(np.random.SeedSequence(seed)))
    return None
### END SOLUTION
