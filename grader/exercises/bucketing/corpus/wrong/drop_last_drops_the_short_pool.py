# WRONG: with drop_last=True it drops the whole incomplete final pool, not just the short batch; lengths range(10), batch_size=2, pool_batches=2, drop_last=True yields 4 batches (8 indices) instead of 5 (len says 5).
# breaks: bucketing.epoch_partitions_the_indices

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
        if self.drop_last:
            perm = perm[: n - n % pool_size]
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
