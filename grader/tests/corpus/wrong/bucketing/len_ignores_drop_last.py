# WRONG: __len__ always returns ceil(n / batch_size), even with drop_last=True.
# breaks: bucketing.len

### BEGIN SOLUTION BucketBatchSampler.__len__
        return math.ceil(len(self.lengths) / self.batch_size)
### END SOLUTION
