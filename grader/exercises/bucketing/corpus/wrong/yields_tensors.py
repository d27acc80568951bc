# WRONG: yields each batch as a tensor of indices instead of a list of Python ints.
# breaks: bucketing.batches_are_lists_of_python_ints
# witness of: test_bucketing.py::test_one_epoch_covers_every_index_once_in_lists_of_ints

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

        for b in torch.randperm(len(batches), generator=generator).tolist():
            yield batches[b]
### END SOLUTION
