"""Probes of the grader's throughput figure (LAB.md, "Experiment (d): throughput"), timed by the zygote's clock.

Two probes, run in alternating rounds by :mod:`grader.engine.throughput`:

* :func:`levels` imports the student's ``TokenWindows`` and reads batches at
  the lab's three levels through a DataLoader with 0 workers: per item
  (``__getitem__`` only), ``__getitems__`` (automatic batching) and whole
  batches (``read_batch`` behind ``batch_size=None`` over a BatchSampler);
* :func:`ceiling` never imports the submission: it gathers the same kind of
  windows straight from a memmap of the same file and widens them (the raw
  gather, the data path's ceiling), in a process the student's code never ran in.

Neither probe times anything that counts. Around each timed stretch it
writes a mark on its clock socket (:data:`grader.inside.probe_life.CLOCK_FD`);
the zygote stamps each mark with its own clock as it reads it, answers it
with random bytes it draws then, and the grading process computes the rates
from the stamps. The child's own clock decides only how much work a stretch
does (at most ``seconds`` by that clock, or ``samples``), and its reading
travels in the mark as a diagnostic.

Nothing the probe holds before a stretch's start is stamped says which
windows the stretch reads: they are drawn from the start mark's answer, and
each batch's are shifted by the x-token sum of the batch before it
(:func:`grader.shared.throughput.next_offset`), so no batch can be gathered
before the one before it was read. Each end mark carries how many windows
were read and the sum of their x tokens, which the grading process checks
against the windows the answer draws. The file is written as the checks
write theirs (``tokens.bin`` in the probe's scratch folder). In the
student's process, :func:`levels` also counts what the checks judge there
(the memmap reads of each ``read_batch`` and ``__getitems__`` call, the
memmaps opened by ``__init__`` and ``len()``, the bytes read from files),
and returns the counts for the grading process to judge.
"""

from __future__ import annotations

import os
import select
import time

import numpy as np
import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, Sampler

from grader.inside.child import load_submission
from grader.inside.probe_life import CLOCK_FD
from grader.shared.throughput import next_offset, window_starts
from grader.shared.token_data import token_data

#: The levels, in the order a round reads them.
LEVELS = ("per item", "__getitems__", "whole batches")
CEILING = "raw gather"
#: Bound now, in the zygote: the clock only cuts a stretch short; the others wait for the zygote's answers.
_clock, _poll, _read, _write, _memmap = time.perf_counter, select.poll, os.read, os.write, np.memmap
#: How long a mark waits for the zygote's answer before the probe gives up (and the figure is not measured).
READ_WAIT_S = 2.0
FILE_NAME = "tokens.bin"  # the name the tokens checks give their files, in the same scratch folder


def mark(text: str) -> int:
    """Write one mark on the clock socket and wait for the zygote's answer, which it writes once it has stamped the
    mark: the answer, as an int (:class:`RuntimeError` without one within :data:`READ_WAIT_S`).

    Waiting also means a busy machine cannot leave the zygote unscheduled
    for a whole stretch and have it read a start and its end together (one
    stamp for both): a stretch starts after its start mark's stamp.
    """
    _write(CLOCK_FD, text.encode("ascii") + b"\n")
    poller, line = _poll(), b""
    poller.register(CLOCK_FD, select.POLLIN)
    waited_until = _clock() + READ_WAIT_S
    while not line.endswith(b"\n"):
        left = waited_until - _clock()
        if left <= 0 or not poller.poll(max(1, int(left * 1000))):
            raise RuntimeError(f"the zygote did not answer the mark {text.split(' ', 2)[:2]} within {READ_WAIT_S:g} s")
        chunk = _read(CLOCK_FD, 64 - len(line))
        if not chunk:
            raise RuntimeError("the clock socket closed")
        line += chunk
    return int(line.split(b"\n", 1)[0], 16)


def _token_file(tokens: int, data_seed: int, high: int) -> str:
    path = os.path.abspath(FILE_NAME)
    token_data(tokens, np.uint16, data_seed, high).tofile(path)
    return path


def _bytes_read() -> int:
    """The bytes this process has read with read(2) and its kind so far (/proc/self/io's rchar), -1 if unknown."""
    try:
        with open("/proc/self/io", "rb") as fh:
            return next(int(line.split()[1]) for line in fh if line.startswith(b"rchar:"))
    except (OSError, StopIteration, ValueError):
        return -1


class Counts:
    """What :func:`levels` counts in the student's process: memmaps opened and indexed (the checks count the same way,
    grader/exercises/tokens/probe.py's CountingMemmap), and the most memmap reads of one call per level."""

    opens = reads = 0
    most = {}


class CountingMemmap(_memmap):
    """``np.memmap`` that counts the memmaps opened and how often one is indexed (arrays made from it are not counted)."""

    def __new__(cls, *args, **kwargs):
        Counts.opens += 1
        return super().__new__(cls, *args, **kwargs)

    def __getitem__(self, index):
        if getattr(self, "_mmap", None) is not None:
            Counts.reads += 1
        return super().__getitem__(index)


class Chained(Sampler):
    """The untimed first batch's windows, then the stretch's: set :attr:`base` after the start mark, and
    :attr:`offset` after each batch (:func:`grader.shared.throughput.next_offset`); a batch's windows are computed
    only when the loader asks for its first index."""

    def __init__(self, first, batch, windows):
        self.first, self.batch, self.windows = first, batch, windows
        self.base, self.offset = None, 0

    def __len__(self):
        return len(self.first) + (len(self.base) if self.base is not None else 0)

    def __iter__(self):
        yield from self.first
        base = self.base
        for first in range(0, len(base), self.batch):
            yield from ((base[first:first + self.batch] + self.offset) % self.windows).tolist()


class PerItem(Dataset):
    """The student's windows with ``__getitem__`` only: one call per window, then ``default_collate``."""

    def __init__(self, windows):
        self.windows = windows

    def __len__(self):
        return len(self.windows)

    def __getitem__(self, i):
        return self.windows[i]


class Getitems(Dataset):
    """The student's ``__getitems__`` as the loader calls it (automatic batching), its memmap reads counted per call."""

    def __init__(self, windows):
        self.windows = windows

    def __len__(self):
        return len(self.windows)

    def __getitem__(self, i):
        return self.windows[i]

    def __getitems__(self, indices):
        before = Counts.reads
        got = self.windows.__getitems__(indices)
        Counts.most["__getitems__"] = max(Counts.most.get("__getitems__", 0), Counts.reads - before)
        return got


class WholeBatches(Dataset):
    """``read_batch`` behind a loader with ``batch_size=None`` over a BatchSampler: ready ``(B, T)`` batches, the
    memmap reads of each call counted."""

    def __init__(self, windows):
        self.windows = windows

    def __len__(self):
        return len(self.windows)

    def __getitem__(self, indices):
        before = Counts.reads
        got = self.windows.read_batch(indices)
        Counts.most["whole batches"] = max(Counts.most.get("whole batches", 0), Counts.reads - before)
        return got


def _stretch(name: str, batches, sampler: Chained, samples: int, seconds: float) -> None:
    """One timed stretch: a first batch untimed, then marks around at most ``samples`` windows (or ``seconds`` by
    this process's clock), drawn from the start mark's answer. The end mark says ``end <name> <windows> <sum of
    their x tokens> <child's seconds>``."""
    it = iter(batches)
    next(it)
    count = total = 0
    sampler.base = window_starts(mark(f"start {name}"), sampler.windows, samples)
    began = _clock()
    for x, _y in it:
        x_sum = int(x.sum())
        count, total, sampler.offset = count + len(x), total + x_sum, next_offset(x_sum, sampler.windows)
        if count >= samples or _clock() - began >= seconds:
            break
    elapsed = _clock() - began
    mark(f"end {name} {count} {total} {elapsed:.6f}")


def levels(tokens, data_seed, high, block, batch, seed, samples, seconds):
    """The student's TokenWindows at the three levels, 0 workers, each over windows drawn from its start mark's answer
    (``seed`` draws only the untimed first batches). Returns the counts of :class:`Counts` for the grading process."""
    np.memmap = CountingMemmap  # before the submission is imported, as the checks do
    module = load_submission("tokens")
    path = _token_file(tokens, data_seed, high)
    read_before = _bytes_read()
    ds = module.TokenWindows(path, block)
    len(ds)
    opened_by_init = Counts.opens
    windows = tokens - block
    first = window_starts(seed, windows, 3 * batch).tolist()
    samplers = [Chained(first[k * batch:(k + 1) * batch], batch, windows) for k in range(3)]
    loaders = {
        "per item": DataLoader(PerItem(ds), batch_size=batch, sampler=samplers[0]),
        "__getitems__": DataLoader(Getitems(ds), batch_size=batch, sampler=samplers[1]),
        "whole batches": DataLoader(WholeBatches(ds), sampler=BatchSampler(samplers[2], batch, False), batch_size=None),
    }
    for (name, loader), sampler in zip(loaders.items(), samplers):
        _stretch(name, loader, sampler, samples, seconds)
    read_after = _bytes_read()
    return {"levels": list(loaders), "file_bytes": os.path.getsize(path), "opened_by_init": opened_by_init,
            "most_reads_per_call": dict(Counts.most),
            "bytes_read": read_after - read_before if min(read_before, read_after) >= 0 else None}


def ceiling(tokens, data_seed, high, block, batch, seed, samples, seconds):
    """The raw gather over windows drawn as the levels' are: (B, T + 1) blocks fancy-indexed from a memmap (the
    counting one the levels read, so that both pay for it), widened, split in x and y."""
    memmap = CountingMemmap(_token_file(tokens, data_seed, high), dtype=np.uint16, mode="r")
    windows = tokens - block
    sampler = Chained(window_starts(seed, windows, batch).tolist(), batch, windows)
    span = np.arange(block + 1)

    def gather(starts):
        windows_ = torch.from_numpy(memmap[starts[:, None] + span].astype(np.int64))
        return windows_[:, :-1], windows_[:, 1:]

    def batches():  # the sampler's windows, straight from its arrays (no Python ints: nothing but the gather)
        yield gather(np.asarray(sampler.first))
        base = sampler.base  # set once the first batch was read and the start mark answered
        for first in range(0, len(base), batch):
            yield gather((base[first:first + batch] + sampler.offset) % windows)

    _warm_loaders(memmap, block, batch, window_starts(seed + 1, windows, batch).tolist())
    _stretch(CEILING, batches(), sampler, samples, seconds)
    return {"levels": [CEILING]}


class _Lazy(Dataset):
    """A lazy dataset of the grader's own over the ceiling's memmap (what a right answer is made of)."""

    def __init__(self, memmap, block):
        self.memmap, self.span = memmap, np.arange(block + 1)

    def __len__(self):
        return len(self.memmap) - len(self.span) + 1

    def __getitem__(self, i):
        window = torch.from_numpy(self.memmap[i:i + len(self.span)].astype(np.int64))
        return window[:-1], window[1:]

    def read_batch(self, indices):
        window = torch.from_numpy(self.memmap[np.asarray(indices)[:, None] + self.span].astype(np.int64))
        return window[:, :-1], window[:, 1:]

    def __getitems__(self, indices):
        return list(zip(*self.read_batch(indices)))


def _warm_loaders(memmap, block, batch, indices):
    """One batch of each of the levels' loaders over :class:`_Lazy`, untimed: the ceiling's process then holds what
    the loaders hold in the levels' (its peak memory is the levels' to be compared with, by the zygote's measure)."""
    ds = _Lazy(memmap, block)
    for loader in (DataLoader(PerItem(ds), batch_size=batch, sampler=indices),
                   DataLoader(Getitems(ds), batch_size=batch, sampler=indices),
                   DataLoader(WholeBatches(ds), sampler=BatchSampler(indices, batch, False), batch_size=None)):
        next(iter(loader))
