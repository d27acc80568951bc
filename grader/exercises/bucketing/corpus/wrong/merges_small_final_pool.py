# WRONG: folds a final pool smaller than batch_size into the previous pool; with lengths range(5), batch_size=2, pool_batches=1 the last 3 permuted indices are sorted together, so for Generator().manual_seed(s) the batches differ from pools [p0 p1], [p2 p3], [p4] cut in order.
# breaks: bucketing.pools_cut_padding_and_one_batch_pools_do_not
# witness of: test_bucketing.py::test_a_final_pool_smaller_than_a_batch_stays_a_pool

### BEGIN SOLUTION BucketBatchSampler.__init__
        if batch_size < 1 or pool_batches < 1:
            raise ValueError(f"batch_size and pool_batches must be >= 1, got {batch_size} and {pool_batches}")
### END SOLUTION

### BEGIN SOLUTION BucketBatchSampler.__len__
        n = len(self.lengths)
        if self.drop_last:
            return n // self.batch_size
        return (n + self.batch_size - 1) // self.batch_size
### END SOLUTION

### BEGIN SOLUTION BucketBatchSampler.__iter__
        n = len(self.lengths)
        generator = self.generator
        if generator is None:
            seed = int(torch.empty((), dtype=torch.int64).random_().item())
            generator = torch.Generator().manual_seed(seed)
        perm = torch.randperm(n, generator=generator)
        pool_size = self.pool_batches * self.batch_size
        batches = []
        starts = list(range(0, n, pool_size))
        if len(starts) > 1 and n - starts[-1] < self.batch_size:
            starts.pop()
        for j, start in enumerate(starts):
            pool = perm[start:starts[j + 1] if j + 1 < len(starts) else n]
            pool = pool[torch.argsort(self.lengths[pool], stable=True)]
            for b in range(0, len(pool), self.batch_size):
                batches.append(pool[b:b + self.batch_size].tolist())
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            batches.pop()
        for k in torch.randperm(len(batches), generator=generator).tolist():
            yield batches[k]
### END SOLUTION
