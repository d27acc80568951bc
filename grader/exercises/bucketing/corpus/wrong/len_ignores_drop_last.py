# WRONG: __len__ always returns ceil(n / batch_size), even with drop_last=True.
# breaks: bucketing.len_is_the_number_of_batches
# witness of: test_bucketing.py::test_len_counts_the_batches_of_an_epoch

### BEGIN SOLUTION BucketBatchSampler.__len__
        return math.ceil(len(self.lengths) / self.batch_size)
### END SOLUTION
