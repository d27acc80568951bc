"""Hostile: tries to import the fake torch.py next to it, and otherwise breaks."""
import importlib
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
for _name in ("torch", "numpy"):
    sys.modules.pop(_name, None)
import torch  # noqa: E402  the real one is expected: torch.py is not copied

from torch.utils.data import Sampler  # noqa: E402


class BucketBatchSampler(Sampler):
    def __init__(self, lengths, batch_size, pool_batches=50, drop_last=False, generator=None):
        raise NotImplementedError("hostile stub")

    def __len__(self):
        raise NotImplementedError("hostile stub")

    def __iter__(self):
        raise NotImplementedError("hostile stub")
