# WRONG: ShardedRange shards with np.array_split and yields NumPy integers instead of Python ints.
# breaks: sharding.range_yields_python_ints
# witness of: test_sharding.py::test_range_yields_python_ints
import numpy as np

### BEGIN SOLUTION ShardedRange.__iter__
        info = get_worker_info()
        if info is None:
            return iter(np.arange(self.n))
        return iter(np.array_split(np.arange(self.n), info.num_workers)[info.id])
### END SOLUTION

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        worker_id, num_workers = (0, 1) if info is None else (info.id, info.num_workers)
        readers = self.world_size * num_workers
        reader = self.rank * num_workers + worker_id
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as lines:
                for line in lines:
                    yield line.removesuffix("\n")
### END SOLUTION
