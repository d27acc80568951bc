# WRONG: sorts the whole dataset by length and yields the batches shortest first: no pools, no shuffle.
# breaks: bucketing.fresh_permutation, bucketing.pools_in_order, bucketing.batch_order_shuffled, bucketing.generator_advances_and_replays, bucketing.no_generator_follows_torch_seed
# witness of: test_bucketing.py::test_one_batch_pools_pad_like_random_batches; lab c: pools of one batch pad like random batches

### BEGIN SOLUTION BucketBatchSampler.__iter__
        order = torch.argsort(self.lengths, stable=True)
        batches = list(order.split(self.batch_size))
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            batches.pop()
        for batch in batches:
            yield batch.tolist()
### END SOLUTION
