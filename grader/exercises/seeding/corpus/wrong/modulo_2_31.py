# WRONG: reduces the seed modulo 2**31 instead of 2**32, so it differs from the documented seed whenever bit 31 is set.
# breaks: seeding.seed_is_torch_initial_seed_modulo_2_32
# witness of: test_seeding.py::test_outside_a_worker_the_seed_is_torch_seed_modulo_2_32

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**31
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(seed)
### END SOLUTION
