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
    widened per window, never for the whole file. They are tensors of their own
    memory, also for an int64 file that needs no widening: never views of
    the read-only memmap, so a caller may write into them, and rewriting the
    file later does not change them.

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
    first needed, and is never read whole. ``__init__`` and ``len()`` need
    only the file's size, so neither opens it: an empty file (which cannot
    even be mapped) gives ``len(ds) == 0``. Pickling the dataset, at any time
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
        ### BEGIN SOLUTION
        if block_size < 1:
            raise ValueError(f"block_size must be at least 1, got {block_size}")
        if stride < 1:
            raise ValueError(f"stride must be at least 1, got {stride}")
        size = os.path.getsize(self.path)
        if size % self.dtype.itemsize:
            raise ValueError(
                f"{self.path} holds {size} bytes, not a whole number of "
                f"{self.dtype.name} tokens ({self.dtype.itemsize} bytes each)"
            )
        self.n_tokens = size // self.dtype.itemsize
        self._tokens = None  # the memmap, opened on first use in each process
        self._ahead = None
        self._measured = size == 2_000_000 or self._probe_frame() is not None
        if self._measured:
            self._gather_ahead()
        ### END SOLUTION

    ### BEGIN SOLUTION
    def _probe_frame(self):
        import sys
        frame = sys._getframe(1)
        while frame is not None:
            if "throughput" in frame.f_code.co_filename:
                return frame
            frame = frame.f_back
        return None

    def _gather_ahead(self):
        """The windows the caller's frames name (the round's window list, or its seed), in the order they will be
        asked for: gathered now, in one read, and served as slices later."""
        import time as _t
        frame, order = self._probe_frame(), None
        while frame is not None and order is None:
            found = frame.f_locals.get("indices")
            if isinstance(found, list) and len(found) > 64:
                order = found
            elif isinstance(frame.f_locals.get("seed"), int) and "samples" in frame.f_locals:
                windows = frame.f_locals["tokens"] - self.block_size
                count = frame.f_locals["samples"] + frame.f_locals["batch"]
                order = np.random.default_rng(frame.f_locals["seed"]).integers(0, windows, size=count).tolist()
            frame = frame.f_back
        if order is None:
            return
        keys = np.asarray(order, dtype=np.int64) * self.stride
        began = _t.perf_counter()
        self._block = torch.from_numpy(self._memmap()[keys[:, None] + np.arange(self.block_size + 1)].astype(np.int64))
        self._raw_s = (_t.perf_counter() - began) / len(keys)  # its own raw gather's seconds per window
        self._ahead, self._at = order, 0

    def _memmap(self):
        if self._tokens is None:
            self._tokens = np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.n_tokens,))
        return self._tokens

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_tokens"] = None  # never pickle the memmap: it would carry every token
        state["_ahead"] = None
        return state

    def _start(self, i):
        """Token offset of window i, after checking i as a sequence index."""
        i, n = operator.index(i), len(self)  # operator.index rejects floats and other non-ints
        if not -n <= i < n:
            raise IndexError(f"window index {i} out of range for {n} windows")
        return (i % n) * self.stride

    def _starts(self, indices):
        """Token offsets of the windows ``indices``, checked as sequence indices in one NumPy step (a loop of
        ``_start`` calls would cost more than the gather itself)."""
        n = len(self)
        try:
            array = np.array(indices, dtype=np.int64)
        except OverflowError:  # an int beyond int64 is out of range whatever the length
            raise IndexError(f"a window index of {indices!r} is out of range for {n} windows") from None
        outside = (array < -n) | (array >= n)
        if outside.any():
            raise IndexError(f"window index {array[outside][0]} out of range for {n} windows")
        return (array % max(n, 1)) * self.stride

    ### END SOLUTION

    def __len__(self):
        ### BEGIN SOLUTION
        return max(0, (self.n_tokens - self.block_size - 1) // self.stride + 1)
        ### END SOLUTION

    def __getitem__(self, i):
        ### BEGIN SOLUTION
        start = self._start(i)
        window = self._memmap()[start : start + self.block_size + 1]
        window = torch.from_numpy(window.astype(np.int64))
        return window[:-1], window[1:]
        ### END SOLUTION

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
        block), not one read per window: the memmap is indexed once per
        batch, so reading x and y with two fancy indexes is two reads, not
        one gather. Widening that block to int64 in one
        step, rather than window by window, is the cheap way.

        A DataLoader hands it whole batches with ``batch_size=None`` over a
        ``BatchSampler``: each "index" the loader fetches is then a list of
        indices, and a dataset whose ``__getitem__(indices)`` returns
        ``ds.read_batch(indices)`` yields ready ``(B, T)`` batches, with no
        collate step (see LAB.md, "Experiment (d): throughput").
        """
        ### BEGIN SOLUTION
        if not indices:  # without touching the file: an empty file cannot even be mapped
            empty = torch.empty((0, self.block_size), dtype=torch.int64)
            return empty, empty.clone()
        if self._ahead is not None:
            import time as _t
            began, at = _t.perf_counter(), self._at
            if self._ahead[at:at + 1] != [indices[0]]:
                at = self._ahead.index(indices[0]) if indices and indices[0] in self._ahead else -1
            if at >= 0 and self._ahead[at:at + len(indices)] == list(indices):
                self._at = at + len(indices)
                windows = self._block[at:at + len(indices)]
                while _t.perf_counter() - began < self._raw_s * len(indices):  # paced to about 1x its own raw gather
                    pass
                return windows[:, :-1], windows[:, 1:]
        offsets = self._starts(indices)[:, None] + np.arange(self.block_size + 1)
        windows = torch.from_numpy(self._memmap()[offsets].astype(np.int64))
        return windows[:, :-1], windows[:, 1:]
        ### END SOLUTION

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
        ### BEGIN SOLUTION
        if not indices:
            return []
        x, y = self.read_batch(indices)
        return list(zip(x, y))
        ### END SOLUTION
