# RIGHT: keeps the lengths as a Python list and sorts pools with sorted(key=...), taking only the two permutations from torch.

### BEGIN SOLUTION BucketBatchSampler.__iter__
        generator = self.generator
        if generator is None:
            generator = torch.Generator()
            generator.manual_seed(int(torch.empty((), dtype=torch.int64).random_().item()))
        lengths = self.lengths.tolist()
        n = len(lengths)
        order = torch.randperm(n, generator=generator).tolist()
        size = self.pool_batches * self.batch_size
        batches = []
        for pool in (order[s : s + size] for s in range(0, n, size)):
            pool = sorted(pool, key=lengths.__getitem__)
            batches.extend(pool[i : i + self.batch_size] for i in range(0, len(pool), self.batch_size))
        if self.drop_last and batches and len(batches[-1]) != self.batch_size:
            batches = batches[:-1]
        shuffled = torch.randperm(len(batches), generator=generator).tolist()
        for b in shuffled:
            yield batches[b]
### END SOLUTION
