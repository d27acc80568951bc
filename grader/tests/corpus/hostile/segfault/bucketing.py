"""Hostile: every method dereferences a NULL pointer (SIGSEGV)."""
import ctypes

from torch.utils.data import Sampler


def _crash():
    ctypes.string_at(0)


class BucketBatchSampler(Sampler):
    def __init__(self, lengths, batch_size, pool_batches=50, drop_last=False, generator=None):
        _crash()

    def __len__(self):
        _crash()
        return 0

    def __iter__(self):
        _crash()
        return iter(())
