# WRONG: with drop_last=True drops the last batch of the final pool even when it is full.
# breaks: bucketing.epoch_partitions_the_indices

### BEGIN SOLUTION BucketBatchSampler.__iter__
        generator = self.generator
        if generator is None:
            seed = int(torch.empty((), dtype=torch.int64).random_().item())
            generator = torch.Generator().manual_seed(seed)

        n = len(self.lengths)
        order = torch.randperm(n, generator=generator)
        pool_size = self.pool_batches * self.batch_size
        batches = []
        for start in range(0, n, pool_size):
            pool = order[start : start + pool_size]
            pool = pool[torch.argsort(self.lengths[pool], stable=True)]
            batches.extend(pool.split(self.batch_size))
        if self.drop_last and batches:
            batches.pop()

        for b in torch.randperm(len(batches), generator=generator).tolist():
            yield batches[b].tolist()
### END SOLUTION
