# WRONG: when rng is a class attribute it assigns type(dataset).rng instead of the instance; for class D: rng = None, the worker's copy gets no instance attribute ('rng' not in vars(d)) and D.rng is changed for every instance.
# breaks: seeding.class_level_rng_is_replaced_too
# witness of: test_seeding.py::test_a_dataset_whose_class_defines_rng_gets_one_of_its_own; test_seeding.py::test_in_a_simulated_worker_every_rng_attribute_is_replaced
import functools
@functools.lru_cache(maxsize=None)
def _seed():
    return torch.initial_seed() % 2**32

### BEGIN SOLUTION seed_worker
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None:
        dataset = info.dataset
        if "rng" in vars(dataset):
            dataset.rng = np.random.default_rng(seed)
        elif hasattr(type(dataset), "rng"):
            type(dataset).rng = np.random.default_rng(seed)
### END SOLUTION
