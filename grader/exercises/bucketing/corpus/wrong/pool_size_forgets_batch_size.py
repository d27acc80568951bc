# WRONG: makes each pool pool_batches indices long instead of pool_batches * batch_size, so pools leave short batches.
# breaks: bucketing.epoch_partitions_the_indices, bucketing.pools_cut_padding_and_one_batch_pools_do_not

### BEGIN SOLUTION BucketBatchSampler.__iter__
        generator = self.generator
        if generator is None:
            seed = int(torch.empty((), dtype=torch.int64).random_().item())
            generator = torch.Generator().manual_seed(seed)

        n = len(self.lengths)
        order = torch.randperm(n, generator=generator)
        pool_size = self.pool_batches
        batches = []
        for start in range(0, n, pool_size):
            pool = order[start : start + pool_size]
            pool = pool[torch.argsort(self.lengths[pool], stable=True)]
            batches.extend(pool.split(self.batch_size))
        if self.drop_last:
            batches = [b for b in batches if len(b) == self.batch_size]

        for b in torch.randperm(len(batches), generator=generator).tolist():
            yield batches[b].tolist()
### END SOLUTION
