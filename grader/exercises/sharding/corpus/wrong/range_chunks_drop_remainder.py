# WRONG: ShardedRange gives each worker a contiguous chunk of n // k integers, dropping the n % k left over (all of them when n < k).
# breaks: sharding.range_exactly_once_in_real_workers
# witness of: test_sharding.py::test_fewer_items_than_workers; lab a: sharded: each integer exactly once, fewer integers than workers; test_sharding.py::test_range_in_simulated_workers_each_integer_exactly_once

### BEGIN SOLUTION ShardedRange.__iter__
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        chunk = self.n // info.num_workers
        return iter(range(info.id * chunk, (info.id + 1) * chunk))
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
