# WRONG: splits 0..n-1 into contiguous blocks with float bounds int(w * n / k) .. int((w + 1) * n / k); for n = 2**53 + 1 and one worker the last block ends at int(float(n)) = 2**53, so 2**53 is never yielded (checked on the bounds).
# breaks: sharding.range_exactly_once_in_real_workers
# HIDDEN: only n = 2**53 + 1 shows it, a stream no test can iterate; the grader reads the bounds of the workers' range iterators instead

### BEGIN SOLUTION ShardedRange.__iter__
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        start, stop = int(info.id * self.n / info.num_workers), int((info.id + 1) * self.n / info.num_workers)
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
