# WRONG: seeds every RNG from worker_id alone, so every epoch and every run repeats the same streams.
# breaks: seeding.seed_from_initial_seed, seeding.reruns_workers_epochs
# witness of: test_seeding.py::test_reruns_repeat_workers_differ_epochs_differ

### BEGIN SOLUTION seed_worker
    seed = worker_id
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(seed)
### END SOLUTION
