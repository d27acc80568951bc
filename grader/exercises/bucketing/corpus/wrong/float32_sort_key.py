# WRONG: sorts each pool by its lengths converted to float32, which beyond 2**24 holds only every second integer: lengths 2**24 + 7, + 8 and + 9 become one key, so a pool is not sorted by length there.
# breaks: bucketing.huge_pool_gives_sorted_slices
# witness of: test_bucketing.py::test_lengths_beyond_float32_precision_sort_exactly

### BEGIN SOLUTION BucketBatchSampler.__iter__
        generator = self.generator
        if generator is None:
            seed = int(torch.empty((), dtype=torch.int64).random_().item())
            generator = torch.Generator().manual_seed(seed)

        n = len(self.lengths)
        order = torch.randperm(n, generator=generator)
        pool_size = self.pool_batches * self.batch_size
        keys = self.lengths.to(torch.float32)
        batches = []
        for start in range(0, n, pool_size):
            pool = order[start : start + pool_size]
            pool = pool[torch.argsort(keys[pool], stable=True)]
            batches.extend(pool.split(self.batch_size))
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            batches.pop()

        for b in torch.randperm(len(batches), generator=generator).tolist():
            yield batches[b].tolist()
### END SOLUTION
