"""Hostile: raises exceptions whose __str__ and __repr__ themselves raise, and whose class name lies."""
from torch.utils.data import Sampler


class Evil(Exception):
    def __str__(self):
        raise RuntimeError("no message for you")

    def __repr__(self):
        raise RuntimeError("no repr either")


Evil.__name__ = "NotImplementedError"
Evil.__qualname__ = "NotImplementedError"


class BucketBatchSampler(Sampler):
    def __init__(self, lengths, batch_size, pool_batches=50, drop_last=False, generator=None):
        raise Evil()

    def __len__(self):
        raise Evil()

    def __iter__(self):
        raise Evil()
