# WRONG: ShardedRange ignores the workers entirely, so k workers yield every integer k times.
# breaks: sharding.range_exactly_once_in_real_workers
# witness of: test_sharding.py::test_two_workers_yield_each_integer_exactly_once; lab a: sharded: each integer exactly once, the count not a multiple of the workers

### BEGIN SOLUTION ShardedRange.__iter__
        return iter(range(self.n))
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
