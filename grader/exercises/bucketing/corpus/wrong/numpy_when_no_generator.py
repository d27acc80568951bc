# WRONG: with generator=None draws the permutation and batch order from NumPy's global RNG instead of torch's.
# breaks: bucketing.without_generator_follows_torch_global_seed
# witness of: test_bucketing.py::test_without_a_generator_epochs_follow_torchs_global_seed
import numpy as np

### BEGIN SOLUTION BucketBatchSampler.__iter__
        n = len(self.lengths)
        if self.generator is None:
            order = torch.from_numpy(np.random.permutation(n))
        else:
            order = torch.randperm(n, generator=self.generator)
        pool_size = self.pool_batches * self.batch_size
        batches = []
        for start in range(0, n, pool_size):
            pool = order[start : start + pool_size]
            pool = pool[torch.argsort(self.lengths[pool], stable=True)]
            batches.extend(pool.split(self.batch_size))
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            batches.pop()
        if self.generator is None:
            batch_order = np.random.permutation(len(batches)).tolist()
        else:
            batch_order = torch.randperm(len(batches), generator=self.generator).tolist()
        for b in batch_order:
            yield batches[b].tolist()
### END SOLUTION
