# WRONG: draws the permutation and the batch order once in __init__, so every epoch yields the same batches in the same order.
# breaks: bucketing.generator_replays_and_advances, bucketing.without_generator_follows_torch_global_seed
# witness of: test_bucketing.py::test_same_seed_replays_and_epochs_differ

### BEGIN SOLUTION BucketBatchSampler.__init__
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        if pool_batches < 1:
            raise ValueError(f"pool_batches must be at least 1, got {pool_batches}")

        n = len(lengths)
        gen = generator if generator is not None else torch.Generator().manual_seed(int(torch.empty((), dtype=torch.int64).random_().item()))
        lengths_t = torch.as_tensor(lengths, dtype=torch.long)
        order = torch.randperm(n, generator=gen)
        pool_size = pool_batches * batch_size
        batches = []
        for start in range(0, n, pool_size):
            pool = order[start : start + pool_size]
            pool = pool[torch.argsort(lengths_t[pool], stable=True)]
            batches.extend(pool.split(batch_size))
        if drop_last and batches and len(batches[-1]) < batch_size:
            batches.pop()
        self._batches = [batches[b].tolist() for b in torch.randperm(len(batches), generator=gen).tolist()]
### END SOLUTION

### BEGIN SOLUTION BucketBatchSampler.__iter__
        yield from (list(b) for b in self._batches)
### END SOLUTION
