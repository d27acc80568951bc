# WRONG: with generator=None uses a new torch.Generator() without seeding it, so every epoch is the same.
# breaks: bucketing.without_generator_follows_torch_global_seed

### BEGIN SOLUTION BucketBatchSampler.__iter__
        generator = self.generator
        if generator is None:
            generator = torch.Generator()

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

        for b in torch.randperm(len(batches), generator=generator).tolist():
            yield batches[b].tolist()
### END SOLUTION
