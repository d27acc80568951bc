# RIGHT: seeds private RandomState/Random objects and copies their state into the global RNGs with set_state/setstate.

### BEGIN SOLUTION seed_worker
    seed = int(torch.initial_seed()) % (1 << 32)
    np.random.set_state(np.random.RandomState(seed).get_state())
    random.setstate(random.Random(seed).getstate())
    info = get_worker_info()
    if info is not None and "rng" in dir(info.dataset):
        setattr(info.dataset, "rng", np.random.default_rng(seed))
### END SOLUTION
