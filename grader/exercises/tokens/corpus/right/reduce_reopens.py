# RIGHT: caches the memmap and pickles through __reduce__, rebuilding the dataset from its constructor arguments.
# WHOLE: it adds __reduce__ and drops __getstate__, members outside the solution regions
"""Exercise 5 (tokens): next-token windows over a flat token file, read lazily.

Language-model pretraining data is one long sequence of token ids stored
flat on disk in the narrowest dtype that holds the vocabulary: uint16 for
up to 65,535 ids, the format of nanoGPT's ``train.bin``. ``numpy.memmap``
lets the OS page in only the windows that are touched, and all workers share
one page cache. The memmap must be opened lazily: pickling an open memmap
serialises its contents, so an eagerly opened corpus would be copied into
every spawned worker.

Handout: LAB.md, "LM pretraining data" and "Experiment (d): throughput".
"""

import operator
import os

import numpy as np
import torch
from torch.utils.data import Dataset


class TokenWindows(Dataset):
    """Map-style dataset of (input, target) windows over a flat binary token file.

    Args:
        path: the file (str or ``os.PathLike``): n token ids of ``dtype``
            written back to back with no header, as ``array.tofile(path)``
            writes them.
        block_size: T, the length of each returned tensor, an int >= 1.
        stride: distance in tokens between the starts of consecutive
            windows, an int >= 1 (stride = T gives non-overlapping windows).
        dtype: the NumPy dtype of the stored ids, default ``numpy.uint16``.

    Raises:
        ValueError: if ``block_size < 1``, if ``stride < 1``, or if the
            file's size in bytes is not a multiple of the dtype's item size
            (checked in ``__init__`` from the file's size, without reading it).

    Window i covers tokens ``[i * stride, i * stride + block_size + 1)``, that
    is T + 1 tokens. ``ds[i]`` returns ``(x, y)``: x is the first T tokens of
    the window and y the last T (so ``y[t] == x[t + 1]`` for t < T - 1 and y
    is the next-token target of x). Both are int64 tensors of shape ``(T,)``,
    widened per window, never for the whole file.

    ``len(ds) == max(0, (n - block_size - 1) // stride + 1)``: every window
    that fits in the file, and no other.

    Indexing works like a sequence's: ``-len(ds) <= i < len(ds)`` is valid,
    negative i counts from the end; any other int raises ``IndexError``.

    ``ds.__getitems__(indices)`` reads a whole batch: see its docstring.

    Laziness: the file is opened with ``numpy.memmap`` only when tokens are
    first needed, and is never read whole. Pickling the dataset, at any time
    (also after ``len()`` and indexing in the parent process), stores only
    the path and the sizes, never the tokens or the memmap, so a DataLoader
    worker started with spawn or forkserver receives only the path and
    opens its own memmap.
    """

    def __init__(self, path, block_size, stride=1, dtype=np.uint16):
        self.path = os.fspath(path)
        self.block_size = block_size
        self.stride = stride
        self.dtype = np.dtype(dtype)
        if block_size < 1:
            raise ValueError(f"block_size must be at least 1, got {block_size}")
        if stride < 1:
            raise ValueError(f"stride must be at least 1, got {stride}")
        size = os.path.getsize(self.path)
        if size % self.dtype.itemsize:
            raise ValueError(f"{self.path} holds {size} bytes, not a whole number of {self.dtype.name} tokens")
        self.n_tokens = size // self.dtype.itemsize
        self._tokens = None

    def __reduce__(self):
        return (type(self), (self.path, self.block_size, self.stride, self.dtype))

    def _memmap(self):
        if self._tokens is None:
            self._tokens = np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.n_tokens,))
        return self._tokens

    def __len__(self):
        return max(0, (self.n_tokens - self.block_size - 1) // self.stride + 1)

    def _index(self, i):
        if isinstance(i, bool) or not isinstance(i, (int, np.integer)):
            raise TypeError(f"window indices must be integers, not {type(i).__name__}")
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"window index out of range for {n} windows")
        return i

    def __getitem__(self, i):
        i = self._index(i)
        window = self._memmap()[i * self.stride : i * self.stride + self.block_size + 1]
        window = torch.tensor(window, dtype=torch.long)  # a copy: never a view of the read-only memmap (int64 files too)
        return window[:-1], window[1:]

    def read_batch(self, indices):
        """The pairs of __getitems__, stacked into two (B, T) tensors."""
        if len(indices) == 0:
            return torch.empty((0, self.block_size), dtype=torch.int64), torch.empty((0, self.block_size), dtype=torch.int64)
        pairs = self.__getitems__(indices)
        return torch.stack([x for x, _ in pairs]), torch.stack([y for _, y in pairs])

    def __getitems__(self, indices):
        """Read a whole batch of windows at once: ``[ds[i] for i in indices]``, gathered in one read.

        The DataLoader calls this instead of one ``ds[i]`` per index when it
        exists (automatic batching). ``indices`` is a list of ints, each
        valid for ``ds[i]``; an invalid one raises ``IndexError`` as
        ``ds[i]`` would. Returns a list of ``(x, y)`` pairs equal to the
        per-item reads, so ``default_collate`` builds the same batch; no
        indices give ``[]``, even for an empty file. The
        tokens of all the windows are taken from the memmap with one gather
        (one fancy-indexing read of a ``(len(indices), block_size + 1)``
        block), not one read per window, and widened to int64 once.
        """
        if len(indices) == 0:
            return []  # nothing to read; an empty file cannot even be mapped
        starts = np.empty(len(indices), dtype=np.int64)
        for k, i in enumerate(indices):
            starts[k] = self._index(i) * self.stride
        block = torch.as_tensor(self._memmap()[starts[:, None] + np.arange(self.block_size + 1)], dtype=torch.long)
        return [(row[:-1], row[1:]) for row in block]
