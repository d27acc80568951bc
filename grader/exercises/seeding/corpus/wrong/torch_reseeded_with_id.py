# WRONG: first reseeds torch with torch.initial_seed() + worker_id ('to be sure workers differ'), then reads the seed back from torch, so worker w >= 1 seeds everything, torch included, with base + 2w.
# breaks: seeding.seed_is_torch_initial_seed_modulo_2_32
# witness of: test_seeding.py::test_in_simulated_workers_every_rng_is_seeded_from_the_torch_seed

### BEGIN SOLUTION seed_worker
    torch.manual_seed(torch.initial_seed() + worker_id)
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(seed)
### END SOLUTION
