"""Probes of the grader's throughput figure (LAB.md, "Experiment (d): throughput"), timed by the zygote's clock.

Two probes, run in alternating rounds by :mod:`grader.engine.throughput`:

* :func:`levels` imports the student's ``TokenWindows`` and reads batches at
  the lab's three levels through a DataLoader with 0 workers: per item
  (``__getitem__`` only), ``__getitems__`` (automatic batching) and whole
  batches (``read_batch`` behind ``batch_size=None`` over a BatchSampler);
* :func:`ceiling` never imports the submission: it gathers the same windows
  straight from a memmap of the same file and widens them (the raw gather,
  the data path's ceiling), in a process the student's code never ran in.

Neither probe times anything that counts. Around each timed stretch it
writes a mark on its clock pipe (:data:`grader.inside.probe_life.CLOCK_FD`);
the zygote stamps each mark with its own clock as it reads it, and the
grading process computes the rates from those stamps. The child's own clock
decides only how much work a stretch does (at most ``seconds`` by that
clock, or ``samples``), and its reading travels in the mark as a diagnostic.
Each end mark carries how many windows were read and the sum of their x
tokens, which the grading process checks against the windows it asked for.
"""

from __future__ import annotations

import fcntl
import os
import struct
import termios
import time

import numpy as np
import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, Sampler

from grader.inside.child import load_submission
from grader.inside.probe_life import CLOCK_FD
from grader.shared.throughput import window_starts
from grader.shared.token_data import token_data

#: The levels, in the order a round reads them.
LEVELS = ("per item", "__getitems__", "whole batches")
CEILING = "raw gather"
_clock, _sleep = time.perf_counter, time.sleep  # bound now, in the zygote: only used to cut a stretch short
#: How long a mark waits for the zygote to read it before the probe goes on anyway.
READ_WAIT_S = 2.0


def _unread() -> int:
    """Bytes on the clock pipe the zygote has not read yet (FIONREAD answers for either end of a pipe)."""
    return struct.unpack("i", fcntl.ioctl(CLOCK_FD, termios.FIONREAD, b"\0" * 4))[0]


def mark(text: str) -> None:
    """Write one mark on the clock pipe and wait until the zygote has read it, and so stamped it.

    Without the wait, a busy machine can leave the zygote unscheduled for a
    whole stretch: it then reads a start and its end in one read and gives
    both the same stamp, and the figure is withheld. With it, a stretch
    starts after its start mark's stamp and its end mark is read later.
    """
    os.write(CLOCK_FD, text.encode("ascii") + b"\n")
    waited_until = _clock() + READ_WAIT_S
    while _unread() and _clock() < waited_until:
        _sleep(0.0002)


def _token_file(tokens: int, data_seed: int, high: int) -> str:
    path = os.path.abspath("throughput.bin")
    token_data(tokens, np.uint16, data_seed, high).tofile(path)
    return path


class Indices(Sampler):
    """The round's window indices, as Python ints."""

    def __init__(self, indices):
        self.indices = indices

    def __len__(self):
        return len(self.indices)

    def __iter__(self):
        return iter(self.indices)


class PerItem(Dataset):
    """The student's windows with ``__getitem__`` only: one call per window, then ``default_collate``."""

    def __init__(self, windows):
        self.windows = windows

    def __len__(self):
        return len(self.windows)

    def __getitem__(self, i):
        return self.windows[i]


class WholeBatches(Dataset):
    """``read_batch`` behind a loader with ``batch_size=None`` over a BatchSampler: ready ``(B, T)`` batches."""

    def __init__(self, windows):
        self.windows = windows

    def __len__(self):
        return len(self.windows)

    def __getitem__(self, indices):
        return self.windows.read_batch(indices)


def _stretch(name: str, batches, samples: int, seconds: float) -> None:
    """One timed stretch: a first batch untimed, then marks around at most ``samples`` windows (or ``seconds`` by
    this process's clock). The end mark says ``end <name> <windows> <sum of their x tokens> <child's seconds>``."""
    it = iter(batches)
    next(it)
    count = total = 0
    mark(f"start {name}")
    began = _clock()
    for x, _y in it:
        count += len(x)
        total += int(x.sum())
        if count >= samples or _clock() - began >= seconds:
            break
    elapsed = _clock() - began
    mark(f"end {name} {count} {total} {elapsed:.6f}")


def levels(tokens, data_seed, high, block, batch, seed, samples, seconds):
    """The student's TokenWindows at the three levels, 0 workers, each over the round's windows (``seed``)."""
    module = load_submission("tokens")
    ds = module.TokenWindows(_token_file(tokens, data_seed, high), block)
    indices = window_starts(seed, tokens - block, samples + batch).tolist()
    loaders = {
        "per item": DataLoader(PerItem(ds), batch_size=batch, sampler=Indices(indices)),
        "__getitems__": DataLoader(ds, batch_size=batch, sampler=Indices(indices)),
        "whole batches": DataLoader(WholeBatches(ds), sampler=BatchSampler(Indices(indices), batch, False), batch_size=None),
    }
    for name, loader in loaders.items():
        _stretch(name, loader, samples, seconds)
    return {"levels": list(loaders)}


def ceiling(tokens, data_seed, high, block, batch, seed, samples, seconds):
    """The raw gather over the round's windows: (B, T + 1) blocks fancy-indexed from a memmap, widened, split in x and y."""
    memmap = np.memmap(_token_file(tokens, data_seed, high), dtype=np.uint16, mode="r")
    starts = window_starts(seed, tokens - block, samples + batch)
    span = np.arange(block + 1)

    def batches():
        for first in range(0, len(starts), batch):
            windows = torch.from_numpy(memmap[starts[first:first + batch, None] + span].astype(np.int64))
            yield windows[:, :-1], windows[:, 1:]

    _stretch(CEILING, batches(), samples, seconds)
    return {"levels": [CEILING]}
