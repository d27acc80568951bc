# WRONG: caches the Generator per seed in a module dict and hands the same object out again, so a second seeding with the same seed in one process gets an already advanced (and shared) generator.
# breaks: seeding.seed_is_torch_initial_seed_modulo_2_32
# witness of: test_seeding.py::test_in_a_simulated_worker_a_second_seeding_gives_a_fresh_generator

_RNGS = {}  # one Generator per seed, made once

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        if seed not in _RNGS:
            _RNGS[seed] = np.random.default_rng(seed)
        info.dataset.rng = _RNGS[seed]
### END SOLUTION
