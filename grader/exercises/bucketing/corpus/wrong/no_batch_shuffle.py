# WRONG: never shuffles the order of the batches, so they come out pool by pool, shortest first within each pool.
# breaks: bucketing.batch_order_is_shuffled
# witness of: test_bucketing.py::test_batch_order_is_shuffled; lab c: batches come in a shuffled order, not pool by pool

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
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            batches.pop()

        for batch in batches:
            yield batch.tolist()
### END SOLUTION
