# WRONG: draws the seed from torch's RNG (torch.randint(0, 2**32, ())) instead of reading torch.initial_seed(); after torch.manual_seed(5), NumPy is seeded with a draw (deterministic but not 5) and torch's stream is advanced.
# breaks: seeding.seed_is_torch_initial_seed_modulo_2_32

### BEGIN SOLUTION seed_worker
    seed = int(torch.randint(0, 2**32, ()).item())
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None:
        dataset = info.dataset
        if hasattr(dataset, "rng"):
            dataset.rng = np.random.default_rng(seed)
### END SOLUTION
