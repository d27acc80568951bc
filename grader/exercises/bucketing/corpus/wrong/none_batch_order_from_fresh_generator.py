# WRONG: with generator=None it draws the permutation from torch's global RNG but shuffles the batch order with a fresh, never-seeded torch.Generator(), so the batch order is the same fixed shuffle every epoch; with one pool over lengths range(8), batch_size=2, two epochs yield the identical list of batches.
# breaks: bucketing.without_generator_follows_torch_global_seed
# witness of: test_bucketing.py::test_without_a_generator_one_pool_gets_a_new_batch_order

### BEGIN SOLUTION BucketBatchSampler.__init__
        if batch_size < 1 or pool_batches < 1:
            raise ValueError(f"batch_size and pool_batches must be >= 1, got {batch_size} and {pool_batches}")
### END SOLUTION

### BEGIN SOLUTION BucketBatchSampler.__len__
        n = len(self.lengths)
        if self.drop_last:
            return n // self.batch_size
        return (n + self.batch_size - 1) // self.batch_size
### END SOLUTION

### BEGIN SOLUTION BucketBatchSampler.__iter__
        n = len(self.lengths)
        generator = self.generator
        perm = torch.randperm(n, generator=generator)
        if generator is None:
            generator = torch.Generator()
        pool_size = self.pool_batches * self.batch_size
        batches = []
        for start in range(0, n, pool_size):
            pool = perm[start:start + pool_size]
            pool = pool[torch.argsort(self.lengths[pool], stable=True)]
            for b in range(0, len(pool), self.batch_size):
                batches.append(pool[b:b + self.batch_size].tolist())
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            batches.pop()
        for k in torch.randperm(len(batches), generator=generator).tolist():
            yield batches[k]
### END SOLUTION
