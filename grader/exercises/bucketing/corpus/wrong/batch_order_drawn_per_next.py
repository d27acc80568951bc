# WRONG: draws the batch order lazily, one randint per next() (pick one of the remaining batches), so the epoch's randomness is still being drawn while the epoch is consumed.
# breaks: bucketing.without_generator_follows_torch_global_seed
# witness of: test_bucketing.py::test_other_draws_during_an_epoch_change_nothing

### BEGIN SOLUTION BucketBatchSampler.__iter__
        generator = self.generator
        if generator is None:  # like RandomSampler: a fresh seed from the global RNG
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
            batches.pop()  # the short batch can only be the last one of the final pool

        remaining = list(range(len(batches)))
        while remaining:  # pick the next batch when it is asked for
            b = remaining.pop(int(torch.randint(len(remaining), (), generator=generator if self.generator is not None else None)))
            yield batches[b].tolist()
### END SOLUTION
