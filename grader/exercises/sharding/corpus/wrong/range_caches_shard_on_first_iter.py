# WRONG: caches (worker id, num_workers) on the dataset at the first iter(); after one list(ds) in the main process, every DataLoader worker (k=2) yields all of 0..n-1, so ShardedRange(4) yields each integer twice.
# breaks: sharding.range_exactly_once_in_real_workers
# witness of: test_sharding.py::test_workers_shard_after_a_pass_in_the_main_process; test_sharding.py::test_range_in_simulated_workers_each_integer_exactly_once

### BEGIN SOLUTION ShardedRange.__iter__
        if getattr(self, '_shard', None) is None:
            info = get_worker_info()
            self._shard = (0, 1) if info is None else (info.id, info.num_workers)
        wid, k = self._shard
        return iter(range(wid, self.n, k))
### END SOLUTION

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        k, wid = (1, 0) if info is None else (info.num_workers, info.id)
        readers = self.world_size * k
        reader = self.rank * k + wid
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.endswith("\n"):
                        line = line[:-1]
                    yield line
### END SOLUTION
