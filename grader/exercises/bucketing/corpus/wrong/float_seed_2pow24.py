# WRONG: with generator=None it draws its seed as int(torch.rand(()) * 2**32); a float32 in [0, 1) takes only 2**24 values, so only 2**24 epochs are possible and they repeat far too often.
# breaks: bucketing.without_generator_follows_torch_global_seed
# HIDDEN: a property of the sampler's randomness: only thousands of epochs show a seed space of 2**24, more than the public tests draw

### BEGIN SOLUTION BucketBatchSampler.__iter__
        generator = self.generator
        if generator is None:  # a fresh seed from the global RNG
            seed = int(torch.rand(()) * 2**32)
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

        for b in torch.randperm(len(batches), generator=generator).tolist():
            yield batches[b].tolist()
### END SOLUTION
