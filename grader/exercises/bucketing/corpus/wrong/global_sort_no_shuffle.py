# WRONG: sorts the whole dataset by length and yields the batches shortest first: no pools, no shuffle.
# breaks: bucketing.batch_order_is_shuffled, bucketing.epoch_partitions_the_indices, bucketing.generator_replays_and_advances, bucketing.pools_cut_padding_and_one_batch_pools_do_not, bucketing.without_generator_follows_torch_global_seed
# witness of: test_bucketing.py::test_one_batch_pools_pad_like_random_batches; lab c: pools of one batch pad like random batches

### BEGIN SOLUTION BucketBatchSampler.__iter__
        order = torch.argsort(self.lengths, stable=True)
        batches = list(order.split(self.batch_size))
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            batches.pop()
        for batch in batches:
            yield batch.tolist()
### END SOLUTION
