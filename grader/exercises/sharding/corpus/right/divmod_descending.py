# RIGHT: splits 0..n-1 with divmod (the first n % k workers get one more), each worker yielding its block in descending order; files via a generator helper.
def _lines_of(paths):
    """Every line of every file in paths, in order, without its line ending."""
    for path in paths:
        with open(path, encoding="utf-8") as f:
            yield from (line[:-1] if line[-1:] == "\n" else line for line in f)

### BEGIN SOLUTION ShardedRange.__iter__
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        q, r = divmod(self.n, info.num_workers)
        start = info.id * q + min(info.id, r)
        stop = start + q + (1 if info.id < r else 0)
        return iter(range(stop - 1, start - 1, -1))
### END SOLUTION

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        k, w = (1, 0) if info is None else (info.num_workers, info.id)
        yield from _lines_of(self.paths[self.rank * k + w :: self.world_size * k])
### END SOLUTION
