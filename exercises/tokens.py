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
        raise NotImplementedError('tokens: TokenWindows.__init__ is not implemented yet. Read its docstring, then LAB.md, "LM pretraining data" and "Experiment (d): throughput".')

    # Add any helper methods TokenWindows needs here (see its docstring).

    def __len__(self):
        raise NotImplementedError('tokens: TokenWindows.__len__ is not implemented yet. Read its docstring, then LAB.md, "LM pretraining data" and "Experiment (d): throughput".')

    def __getitem__(self, i):
        raise NotImplementedError('tokens: TokenWindows.__getitem__ is not implemented yet. Read its docstring, then LAB.md, "LM pretraining data" and "Experiment (d): throughput".')

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
        raise NotImplementedError('tokens: TokenWindows.read_batch is not implemented yet. Read its docstring, then LAB.md, "LM pretraining data" and "Experiment (d): throughput".')

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
        raise NotImplementedError('tokens: TokenWindows.__getitems__ is not implemented yet. Read its docstring, then LAB.md, "LM pretraining data" and "Experiment (d): throughput".')
