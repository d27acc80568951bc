# WRONG: replaces dataset.rng only when it is None or a numpy Generator; a dataset with rng = numpy.random.RandomState(0) (or random.Random(0)) keeps it, so all workers share one stream.
# breaks: seeding.dataset_rng_is_replaced_in_workers
# witness of: test_seeding.py::test_an_rng_of_another_type_is_replaced_too; test_seeding.py::test_in_a_simulated_worker_every_rng_attribute_is_replaced
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
        if hasattr(dataset, "rng") and (dataset.rng is None or isinstance(dataset.rng, np.random.Generator)):
            dataset.rng = np.random.default_rng(seed)
### END SOLUTION
