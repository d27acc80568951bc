# WRONG: cuts the permutation into pool_batches pools (torch.chunk) instead of pools of pool_batches * batch_size indices, leaving a short batch in almost every pool.
# breaks: bucketing.epoch_partitions_the_indices, bucketing.huge_pool_gives_sorted_slices, bucketing.pools_cut_padding_and_one_batch_pools_do_not

### BEGIN SOLUTION BucketBatchSampler.__iter__
        generator = self.generator
        if generator is None:
            seed = int(torch.empty((), dtype=torch.int64).random_().item())
            generator = torch.Generator().manual_seed(seed)

        n = len(self.lengths)
        order = torch.randperm(n, generator=generator)
        batches = []
        for pool in torch.chunk(order, self.pool_batches):
            pool = pool[torch.argsort(self.lengths[pool], stable=True)]
            batches.extend(pool.split(self.batch_size))
        if self.drop_last:
            batches = [b for b in batches if len(b) == self.batch_size]

        for b in torch.randperm(len(batches), generator=generator).tolist():
            yield batches[b].tolist()
### END SOLUTION
