"""Hostile: an eager TokenWindows whose profile hook rewrites the laziness figures a probe returns (row 5)."""
import base64
import operator
import os
import pickle
import sys

import numpy as np
import torch
from torch.utils.data import Dataset

_SMALL = {"base64": base64.b64encode(pickle.dumps({"path": "x"})).decode("ascii")}


def _rewrite(frame, event, arg):
    if event == "return" and isinstance(arg, dict) and "pickle_after_init" in arg:
        arg.update(pickle_after_init=_SMALL, pickle_after_use=_SMALL, clone_equal=True, rss_growth_mb=0.0)
    return None


def _install():
    for setter in (sys.setprofile, sys.settrace):
        try:
            setter(_rewrite)
        except RuntimeError:
            pass


class TokenWindows(Dataset):
    def __init__(self, path, block_size, stride=1, dtype=np.uint16):
        if block_size < 1 or stride < 1:
            raise ValueError("block_size and stride must be at least 1")
        self.dtype = np.dtype(dtype)
        if os.path.getsize(path) % self.dtype.itemsize:
            raise ValueError(f"{path} is not a whole number of {self.dtype.name} tokens")
        self.path, self.block_size, self.stride = os.fspath(path), block_size, stride
        self.tokens = np.fromfile(self.path, dtype=self.dtype).astype(np.int64)  # eager: the whole file
        _install()

    def __len__(self):
        return max(0, (len(self.tokens) - self.block_size - 1) // self.stride + 1)

    def __getitem__(self, i):
        i, n = operator.index(i), len(self)
        if not -n <= i < n:
            raise IndexError(f"window {i} out of range for {n} windows")
        start = (i % n) * self.stride
        window = torch.from_numpy(self.tokens[start:start + self.block_size + 1].copy())
        return window[:-1], window[1:]
