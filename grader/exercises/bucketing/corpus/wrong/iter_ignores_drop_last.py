# WRONG: __iter__ never drops the short batch, although __len__ counts without it.
# breaks: bucketing.epoch_partitions_the_indices
# witness of: test_bucketing.py::test_drop_last_drops_only_the_short_batch

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


        for b in torch.randperm(len(batches), generator=generator).tolist():
            yield batches[b].tolist()
### END SOLUTION
