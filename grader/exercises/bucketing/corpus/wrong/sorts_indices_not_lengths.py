# WRONG: sorts each pool by index (sorted(pool)) instead of by length, so pools do not group similar lengths.
# breaks: bucketing.huge_pool_gives_sorted_slices, bucketing.pools_cut_padding_and_one_batch_pools_do_not
# witness of: test_bucketing.py::test_a_pool_larger_than_the_data_gives_sorted_slices; test_bucketing.py::test_bucketing_cuts_padding; lab c: pools of 50 batches pad at most the bound

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
            pool = sorted(order[start : start + pool_size].tolist())
            batches.extend(torch.tensor(pool, dtype=torch.long).split(self.batch_size))
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            batches.pop()

        for b in torch.randperm(len(batches), generator=generator).tolist():
            yield batches[b].tolist()
### END SOLUTION
