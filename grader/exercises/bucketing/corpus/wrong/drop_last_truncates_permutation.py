# WRONG: with drop_last=True it cuts the random permutation to a multiple of batch_size before pooling, so the dropped indices are random rather than the short batch at one end of the sorted final pool; lengths [0, 1, 2, 3, 4], batch_size=2, one pool, drop_last=True can drop index 2 (only 0 or 4 may be dropped).
# breaks: bucketing.epoch_partitions_the_indices
# witness of: test_bucketing.py::test_drop_last_drops_an_end_of_the_sorted_pool

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
        if self.drop_last:
            perm = perm[: n - n % self.batch_size]
        pool_size = self.pool_batches * self.batch_size
        batches = []
        for start in range(0, n, pool_size):
            pool = perm[start:start + pool_size]
            pool = pool[torch.argsort(self.lengths[pool], stable=True)]
            for b in range(0, len(pool), self.batch_size):
                batches.append(pool[b:b + self.batch_size].tolist())
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            batches.pop()
        for k in torch.randperm(len(batches), generator=generator).tolist():
            yield batches[k]
### END SOLUTION
