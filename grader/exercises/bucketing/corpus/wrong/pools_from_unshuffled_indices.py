# WRONG: cuts the pools from range(n) without a random permutation, so every epoch has the same batches and only their order changes.
# breaks: bucketing.generator_replays_and_advances
# witness of: test_bucketing.py::test_epochs_regroup_the_indices

### BEGIN SOLUTION BucketBatchSampler.__iter__
        generator = self.generator
        if generator is None:
            seed = int(torch.empty((), dtype=torch.int64).random_().item())
            generator = torch.Generator().manual_seed(seed)

        n = len(self.lengths)
        order = torch.arange(n)
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
