# WRONG: shuffles the batch order with the naive swap-with-any-position loop (j drawn from all k positions at every i), which is random but not uniform over orders.
# breaks: bucketing.batch_order_is_shuffled
# HIDDEN: a property of the sampler's randomness: only thousands of epochs show orders of 5/27 and 4/27 where each should be 1/6, more than the public tests draw

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

        k = len(batches)
        perm = list(range(k))
        for i in range(k):
            j = int(torch.randint(k, (), generator=generator))
            perm[i], perm[j] = perm[j], perm[i]
        for b in perm:
            yield batches[b].tolist()
### END SOLUTION
