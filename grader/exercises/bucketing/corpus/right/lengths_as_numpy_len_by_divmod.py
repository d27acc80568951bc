# RIGHT: computes len with divmod, orders each pool with numpy.lexsort over (pool id, length) and cuts batches with np.split; permutations come from torch.
import numpy as np

### BEGIN SOLUTION BucketBatchSampler.__len__
        full, rest = divmod(len(self.lengths), self.batch_size)
        return full + (1 if rest and not self.drop_last else 0)
### END SOLUTION

### BEGIN SOLUTION BucketBatchSampler.__iter__
        generator = self.generator
        if generator is None:
            generator = torch.Generator().manual_seed(int(torch.empty((), dtype=torch.int64).random_().item()))
        lengths = np.asarray(self.lengths.tolist(), dtype=np.int64)
        n = len(lengths)
        order = torch.randperm(n, generator=generator).numpy()
        pool_ids = np.arange(n) // (self.pool_batches * self.batch_size)
        order = order[np.lexsort((lengths[order], pool_ids))]  # by pool, then by length
        cuts = list(range(self.batch_size, n, self.batch_size))
        batches = np.split(order, cuts) if n else []
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            batches = batches[:-1]
        for b in torch.randperm(len(batches), generator=generator).tolist():
            yield batches[b].tolist()
### END SOLUTION
