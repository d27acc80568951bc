# WRONG: seeds every RNG from worker_id alone, so every epoch and every run repeats the same streams.
# breaks: seeding.reruns_repeat_and_epochs_differ, seeding.seed_is_torch_initial_seed_modulo_2_32
# witness of: test_seeding.py::test_reruns_repeat_workers_differ_epochs_differ

### BEGIN SOLUTION seed_worker
    seed = worker_id
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(seed)
### END SOLUTION
