# WRONG: seeds NumPy's global RNG and random but never replaces the dataset's rng, so all workers share one stream.
# breaks: seeding.dataset_rng_replaced, seeding.reruns_workers_epochs

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
### END SOLUTION
