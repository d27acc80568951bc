# WRONG: gathers x and y with two fancy-indexing reads (one (B, T) block at starts, one at starts + 1) instead of one (B, T + 1) block; read_batch([0, 2]) reads the memmap twice.
# breaks: tokens.read_batch_one_gather
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
    Indices are Python ints (``int``, not ``bool``), as the DataLoader's
    samplers give them; what other index types do (NumPy integers, 0-d
    tensors, bools, floats) is outside this contract: they may work or
    raise.

    ``ds.read_batch(indices)`` reads a whole batch as two ``(B, T)`` tensors,
    and ``ds.__getitems__(indices)`` as a list of pairs: see their docstrings.

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
            raise ValueError(f"block_size must be >= 1, got {block_size}")
        if stride < 1:
            raise ValueError(f"stride must be >= 1, got {stride}")
        nbytes = os.path.getsize(self.path)
        if nbytes % self.dtype.itemsize:
            raise ValueError(f"{self.path}: {nbytes} bytes is not a whole number of {self.dtype} tokens")
        self.n_tokens = nbytes // self.dtype.itemsize
        self._tokens = None

    def _memmap(self):
        """The token file as a read-only memmap, opened on first use."""
        if self._tokens is None:
            self._tokens = np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.n_tokens,))
        return self._tokens

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_tokens"] = None
        return state

    def _check(self, i):
        """Normalise a window index, raising IndexError when it is out of range."""
        i = operator.index(i)
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"window index out of range for {n} windows")
        return i

    def __len__(self):
        return max(0, (self.n_tokens - self.block_size - 1) // self.stride + 1)

    def __getitem__(self, i):
        i = self._check(i)
        start = i * self.stride
        window = torch.from_numpy(self._memmap()[start:start + self.block_size + 1].astype(np.int64))
        return window[:-1], window[1:]

    def read_batch(self, indices):
        """Read a whole batch of windows as two ``(B, T)`` tensors: ``x`` and ``y`` stacked, from one gather.

        ``indices`` is a list of Python ints, each valid for ``ds[i]``; an
        invalid one raises ``IndexError`` as ``ds[i]`` would. Other containers
        (a NumPy array, a tensor, a tuple) are outside this contract: they may
        work or raise. Returns ``(x, y)``, two int64 tensors of shape
        ``(len(indices), block_size)`` whose row k is ``ds[indices[k]]``'s x
        and y: what ``torch.stack`` of the per-item reads gives. No indices
        give two tensors of shape ``(0, block_size)``, even for an empty file.
        The tokens of all the windows are taken from the memmap with one
        gather (one fancy-indexing read of a ``(len(indices), block_size + 1)``
        block), not one read per window. Widening that block to int64 in one
        step, rather than window by window, is the cheap way.

        A DataLoader hands it whole batches with ``batch_size=None`` over a
        ``BatchSampler``: each "index" the loader fetches is then a list of
        indices, and a dataset whose ``__getitem__(indices)`` returns
        ``ds.read_batch(indices)`` yields ready ``(B, T)`` batches, with no
        collate step (see LAB.md, "Experiment (d): throughput").
        """
        rows = [self._check(i) for i in indices]
        T = self.block_size
        if not rows:
            return torch.empty((0, T), dtype=torch.long), torch.empty((0, T), dtype=torch.long)
        starts = np.asarray(rows, dtype=np.int64) * self.stride
        offsets = starts[:, None] + np.arange(T)
        tokens = self._memmap()
        x = torch.from_numpy(tokens[offsets].astype(np.int64))
        y = torch.from_numpy(tokens[offsets + 1].astype(np.int64))
        return x, y

    def __getitems__(self, indices):
        """Read a whole batch of windows at once: ``[ds[i] for i in indices]``, as the rows of ``read_batch(indices)``.

        The DataLoader calls this instead of one ``ds[i]`` per index when it
        exists (automatic batching). ``indices`` is a list of Python ints,
        each valid for ``ds[i]``; an invalid one raises ``IndexError`` as
        ``ds[i]`` would. Other containers (a NumPy array, a tensor, a tuple)
        are outside this contract: they may work or raise. Returns a list of
        ``(x, y)`` pairs equal to the per-item reads, so ``default_collate``
        builds the same batch; no indices give ``[]``, even for an empty
        file. Define it through ``read_batch``: it reads the memmap no more
        often than ``read_batch(indices)`` does, so the whole batch comes
        from that one gather.
        """
        x, y = self.read_batch(indices)
        return list(zip(x, y))
