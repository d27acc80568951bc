# WRONG: gives worker w the block starting at w * round(n / k), the last worker taking the rest, without clipping to n; ShardedRange(9) with k=6 has worker 4 yield [8, 9], so 9 (outside 0..n-1) is yielded.
# breaks: sharding.range_exactly_once_in_real_workers
# witness of: test_sharding.py::test_remainders_each_integer_exactly_once

### BEGIN SOLUTION ShardedRange.__iter__
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        size = round(self.n / info.num_workers)
        start = info.id * size
        stop = self.n if info.id == info.num_workers - 1 else start + size
        return iter(range(start, stop))
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
