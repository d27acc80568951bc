# WRONG: special-cases n < k (one integer per worker) but cuts n >= k into k blocks of n // k, so the last n % k integers (4 for n=5, k=2) are never yielded.
# breaks: sharding.range_exactly_once_in_real_workers
# witness of: test_sharding.py::test_remainders_each_integer_exactly_once; test_sharding.py::test_range_in_simulated_workers_each_integer_exactly_once

### BEGIN SOLUTION ShardedRange.__iter__
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        if self.n < info.num_workers:  # fewer items than workers: one each, the others yield nothing
            return iter([info.id] if info.id < self.n else [])
        share = self.n // info.num_workers  # contiguous blocks: the last n % k integers belong to no worker
        return iter(range(info.id * share, (info.id + 1) * share))
### END SOLUTION
