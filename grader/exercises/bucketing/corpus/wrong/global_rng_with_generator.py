# WRONG: calls torch.randperm without generator=, using torch's global RNG even when a generator is given.
# breaks: bucketing.generator_replays_and_advances
# witness of: test_bucketing.py::test_global_rngs_untouched_with_a_generator; lab c: the generator decides: its seed replays the epochs, and each epoch differs

### BEGIN SOLUTION BucketBatchSampler.__iter__
        generator = self.generator
        if generator is None:
            seed = int(torch.empty((), dtype=torch.int64).random_().item())
            generator = torch.Generator().manual_seed(seed)

        n = len(self.lengths)
        order = torch.randperm(n)
        pool_size = self.pool_batches * self.batch_size
        batches = []
        for start in range(0, n, pool_size):
            pool = order[start : start + pool_size]
            pool = pool[torch.argsort(self.lengths[pool], stable=True)]
            batches.extend(pool.split(self.batch_size))
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            batches.pop()

        for b in torch.randperm(len(batches)).tolist():
            yield batches[b].tolist()
### END SOLUTION
