# WRONG: gives worker w the block [w * ceil(n/k), (w + 1) * ceil(n/k)) without clipping to n; ShardedRange(5) with k=2 yields [0, 1, 2] and [3, 4, 5], so 5 (outside 0..n-1) is yielded.
# breaks: sharding.range_exactly_once_in_real_workers
# witness of: test_sharding.py::test_remainders_each_integer_exactly_once

### BEGIN SOLUTION ShardedRange.__iter__
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        size = -(-self.n // info.num_workers)
        return iter(range(info.id * size, (info.id + 1) * size))
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
