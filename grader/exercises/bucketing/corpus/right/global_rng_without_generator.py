# RIGHT: with generator=None passes generator=None on to torch.randperm, drawing straight from torch's global RNG (the docstring allows it) instead of seeding a new generator.

### BEGIN SOLUTION BucketBatchSampler.__iter__
        generator = self.generator  # None: torch.randperm draws from torch's global RNG

        n = len(self.lengths)
        order = torch.randperm(n, generator=generator)
        pool_size = self.pool_batches * self.batch_size
        batches = []
        for start in range(0, n, pool_size):
            pool = order[start : start + pool_size]
            pool = pool[torch.argsort(self.lengths[pool], stable=True)]
            batches.extend(pool.split(self.batch_size))
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            batches.pop()  # the short batch can only be the last one of the final pool

        for b in torch.randperm(len(batches), generator=generator).tolist():
            yield batches[b].tolist()
### END SOLUTION
