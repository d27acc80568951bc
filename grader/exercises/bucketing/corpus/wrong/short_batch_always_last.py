# WRONG: shuffles the full batches but appends the short batch after them, so it comes last in every epoch.
# breaks: bucketing.batch_order_is_shuffled
# witness of: test_bucketing.py::test_the_short_batch_is_shuffled_too

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

        short = [b for b in batches if len(b) < self.batch_size]
        full = [b for b in batches if len(b) == self.batch_size]
        for b in torch.randperm(len(full), generator=generator).tolist():
            yield full[b].tolist()
        for b in short:  # the short batch last, where drop_last would have cut it
            yield b.tolist()
### END SOLUTION
