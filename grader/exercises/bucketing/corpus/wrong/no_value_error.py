# WRONG: accepts batch_size < 1 and pool_batches < 1 without raising ValueError.
# breaks: bucketing.rejects_sizes_below_one
# witness of: test_bucketing.py::test_rejects_sizes_below_one

### BEGIN SOLUTION BucketBatchSampler.__init__
        pass
### END SOLUTION
