# WRONG: shuffles the batch order with Python's random.shuffle instead of the generator.
# breaks: bucketing.generator_replays_and_advances, bucketing.without_generator_follows_torch_global_seed
# witness of: lab c: the generator decides: its seed replays the epochs, and each epoch differs
import random

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

        batches = [b.tolist() for b in batches]
        random.shuffle(batches)
        yield from batches
### END SOLUTION
