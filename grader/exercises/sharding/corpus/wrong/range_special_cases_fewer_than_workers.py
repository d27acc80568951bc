# WRONG: ShardedRange special-cases n < k (one integer each to the first n workers), else gives each worker a contiguous chunk of n // k integers, dropping the n % k left over (n = 5, k = 2 loses 4).
# breaks: sharding.range_exactly_once_in_real_workers
# witness of: lab a: sharded: each integer exactly once, the count not a multiple of the workers

### BEGIN SOLUTION ShardedRange.__iter__
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        if self.n < info.num_workers:  # fewer integers than workers: one each for the first n workers
            return iter([info.id] if info.id < self.n else [])
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
