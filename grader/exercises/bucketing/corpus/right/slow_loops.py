# RIGHT: builds pools and batches with explicit Python loops (slowly: a short sleep per batch) and shuffles with a Fisher-Yates loop fed by torch.randint on the generator.
import time

### BEGIN SOLUTION BucketBatchSampler.__iter__
        generator = self.generator
        if generator is None:
            generator = torch.Generator().manual_seed(int(torch.empty((), dtype=torch.int64).random_().item()))
        n = len(self.lengths)
        order = torch.randperm(n, generator=generator).tolist()
        pool_size = self.pool_batches * self.batch_size
        batches = []
        pool = []
        for position, index in enumerate(order):
            pool.append(index)
            if len(pool) == pool_size or position == n - 1:
                pool.sort(key=lambda i: int(self.lengths[i]))
                batch = []
                for index_in_pool in pool:
                    batch.append(index_in_pool)
                    if len(batch) == self.batch_size:
                        batches.append(batch)
                        batch = []
                if batch:
                    batches.append(batch)
                pool = []
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            batches.pop()
        for i in range(len(batches) - 1, 0, -1):  # Fisher-Yates with the generator
            j = int(torch.randint(0, i + 1, (), generator=generator))
            batches[i], batches[j] = batches[j], batches[i]
        for batch in batches:
            time.sleep(0.0002)
            yield [int(i) for i in batch]
### END SOLUTION
