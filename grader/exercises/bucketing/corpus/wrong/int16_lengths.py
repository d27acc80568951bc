# WRONG: stores the lengths as int16 "to save memory", so a length above 32767 wraps to a negative number and is sorted among the shortest.
# breaks: bucketing.huge_pool_gives_sorted_slices
# witness of: test_bucketing.py::test_lengths_beyond_int16_and_int32_sort_as_ints

### AT THE END OF THE MODULE
_reference_init = BucketBatchSampler.__init__


def _init_with_int16_lengths(self, lengths, *args, **kwargs):
    _reference_init(self, lengths, *args, **kwargs)
    self.lengths = self.lengths.to(torch.int16)  # "lengths are small: save memory"


BucketBatchSampler.__init__ = _init_with_int16_lengths
