# WRONG: yields Python ints without workers but NumPy integers (np.arange) inside workers; DataLoader(ShardedRange(6), num_workers=2, batch_size=None) yields numpy.int64 items, which batch_size=None hands on unconverted.
# breaks: sharding.range_yields_python_ints
# witness of: test_sharding.py::test_range_yields_python_ints_in_workers; test_sharding.py::test_range_in_simulated_workers_each_integer_exactly_once
import numpy as np

### BEGIN SOLUTION ShardedRange.__iter__
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(np.arange(info.id, self.n, info.num_workers))  # "the loader converts them anyway"
### END SOLUTION
