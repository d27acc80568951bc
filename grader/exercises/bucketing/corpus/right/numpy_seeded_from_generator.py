# RIGHT: draws one 63-bit seed from the torch generator per epoch and does the permutation, sort and batch shuffle in a private NumPy Generator.
import numpy as np

### BEGIN SOLUTION BucketBatchSampler.__iter__
        if self.generator is not None:
            seed = int(torch.randint(0, 2**63 - 1, (), generator=self.generator))  # advances the generator
        else:
            seed = int(torch.randint(0, 2**63 - 1, ()))  # torch's global RNG, like RandomSampler
        rng = np.random.default_rng(seed)  # private: no global RNG is touched
        lengths = self.lengths.numpy()
        n = len(lengths)
        order = rng.permutation(n)
        pool_size = self.pool_batches * self.batch_size
        batches = []
        for start in range(0, n, pool_size):
            pool = order[start : start + pool_size]
            pool = pool[np.argsort(lengths[pool], kind="stable")]
            batches += [pool[i : i + self.batch_size] for i in range(0, len(pool), self.batch_size)]
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            del batches[-1]
        for b in rng.permutation(len(batches)):
            yield [int(i) for i in batches[b]]
### END SOLUTION
