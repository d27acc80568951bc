"""Probes for exercise 5, TokenWindows."""

from __future__ import annotations

import base64
import os
import pickle
import warnings
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import default_collate

from grader.inside.probes.common import construction_outcome, describe, error_text, load_submission, tagged_run
from grader.shared.token_data import token_data


def write_tokens(name, n, dtype, seed, high):
    token_data(n, dtype, seed, high).tofile(name)
    return os.path.abspath(name)


def _window(item):
    """(x, y) as data, or a description of whatever came back instead."""
    if not (isinstance(item, tuple) and len(item) == 2):
        return {"type": describe(item)}
    def part(value):
        array = isinstance(value, (torch.Tensor, np.ndarray))
        return {"type": describe(value), "dtype": str(getattr(value, "dtype", "")),
                "shape": list(value.shape) if array else None, "values": value.tolist() if array else None}

    return {"type": "tuple", "x": part(item[0]), "y": part(item[1])}


def windows(file, cases, default_dtype=False, reread=()):
    """For each {block, stride, indices}: len(ds), and ds[i] for each index (or the exception it raised).

    The path is handed over as a ``pathlib.Path`` (the docstring allows str
    or os.PathLike); with ``default_dtype`` the dtype argument is left out
    (a uint16 file: the documented default). Each {dtype, cases} of
    ``reread`` then reads the same path again, in this process, through new
    datasets of another dtype: its entries follow, in order.
    """
    module = load_submission("tokens")
    path = Path(write_tokens("tokens.bin", **file))
    dtype = {} if default_dtype else {"dtype": np.dtype(file["dtype"])}
    runs = [(dtype, case) for case in cases] + [({"dtype": np.dtype(again["dtype"])}, case)
                                                 for again in reread for case in again["cases"]]
    out = []
    for dtype, case in runs:
        ds = module.TokenWindows(path, case["block"], stride=case["stride"], **dtype)
        entry = {"len": len(ds), "items": []}
        for i in case["indices"]:
            try:
                entry["items"].append(_window(ds[i]))
            except NotImplementedError:
                raise
            except Exception as exc:
                entry["items"].append({"error": type(exc).__name__, "message": error_text(exc, 200)})
        out.append(entry)
    return out


def windows_own_memory(n, block, dtype):
    """Whether ds[0]'s x and y change when the file is rewritten after the read (they would if they viewed the
    memmap, whose pages show the file as it is now): {"x": bool, "y": bool}, or the exception ds[0] raised."""
    module = load_submission("tokens")
    path = write_tokens("own_memory.bin", n, dtype, 5, 1000)
    ds = module.TokenWindows(path, block, dtype=np.dtype(dtype))
    try:
        item = ds[0]
    except NotImplementedError:
        raise
    except Exception as exc:
        return {"error": error_text(exc, 200)}
    if not (isinstance(item, tuple) and len(item) == 2 and all(isinstance(v, torch.Tensor) for v in item)):
        return {"type": describe(item)}
    before = [v.clone() for v in item]
    reread = _written_then_read_again(ds)
    with open(path, "r+b") as f:  # the same bytes count, other values: a view of the file would follow them
        f.write((np.fromfile(path, dtype=dtype) + 1).astype(dtype).tobytes())
    return {**{name: not torch.equal(value, saved) for name, value, saved in zip(("x", "y"), item, before)},
            "reread_changed": reread}


def _written_then_read_again(ds):
    """Whether ds[1] read again differs after a write into the x and y the first ds[1] returned (it would if the
    dataset kept and handed out the same tensors, a cache of windows); None when ds[1] gives no tensors to write into."""
    try:
        first = ds[1]
        if not (isinstance(first, tuple) and len(first) == 2 and all(isinstance(v, torch.Tensor) for v in first)):
            return None
        saved = [v.clone() for v in first]
        for v in first:
            v.add_(7)
        again = ds[1]
        return not all(isinstance(v, torch.Tensor) and torch.equal(v, w) for v, w in zip(again, saved))
    except NotImplementedError:
        raise
    except Exception:  # a window that cannot be written (a view of the read-only memmap) is the file check's to judge
        return None


def lengths(cases):
    """For each {n, block, stride}: len(TokenWindows(...)) over a uint16 file of n tokens, or 'ExcType: message'
    ('in __init__: ExcType: message' when the constructor raised)."""
    module = load_submission("tokens")
    out = []
    for i, case in enumerate(cases):
        path = write_tokens(f"tokens{i}.bin", case["n"], "uint16", 1, 100)
        try:
            ds = module.TokenWindows(path, case["block"], stride=case["stride"], dtype=np.uint16)
        except NotImplementedError:
            raise
        except Exception as exc:
            out.append("in __init__: " + error_text(exc, 200))
            continue
        try:
            out.append(len(ds))
        except NotImplementedError:
            raise
        except Exception as exc:
            out.append(error_text(exc, 200))
    return out


_READS = [0]


class CountingMemmap(np.memmap):
    """``np.memmap`` that counts how often a file's own memmap is indexed (arrays made from it are not counted)."""

    def __getitem__(self, index):
        if getattr(self, "_mmap", None) is not None:
            _READS[0] += 1
        return super().__getitem__(index)


def getitems(file, block, stride, batches):
    """For each batch of indices: ds.__getitems__(batch) as windows (or the exception), the memmap reads it took, and
    the per-item reads ``[ds[i] for i in batch]`` as windows (``per_item``; an item that raised as its exception).

    The reads are counted in this process, where the student's code runs:
    ``np.memmap`` is replaced by :class:`CountingMemmap` before the submission
    is imported. A submission that reads through a plain ndarray view of its
    memmap is not counted (see the check's docstring).
    """
    np.memmap = CountingMemmap  # before the submission is imported: "from numpy import memmap" gets it too
    module = load_submission("tokens")
    path = write_tokens("tokens.bin", **file)
    ds = module.TokenWindows(path, block, stride=stride, dtype=np.dtype(file["dtype"]))
    out = []
    for batch in batches:
        per_item = [_item(ds, i) for i in batch]
        before = _READS[0]
        try:
            got = ds.__getitems__(list(batch))
        except NotImplementedError:
            raise
        except Exception as exc:
            out.append({"error": type(exc).__name__, "message": error_text(exc, 200), "per_item": per_item})
            continue
        reads = _READS[0] - before
        items = [_window(item) for item in got] if isinstance(got, (list, tuple)) else None
        out.append({"type": describe(got), "items": items, "reads": reads, "per_item": per_item,
                    "read_batch_reads": _read_batch_reads(ds, batch)})
    return out


def _read_batch_reads(ds, batch):
    """The memmap reads ``ds.read_batch(batch)`` takes, or {"error": ...} (also for a read_batch not written yet: the
    check of __getitems__ then has nothing to compare with, and says so)."""
    before = _READS[0]
    try:
        ds.read_batch(list(batch))
    except Exception as exc:  # NotImplementedError too: __getitems__'s own checks still run
        return {"error": type(exc).__name__, "message": error_text(exc, 200)}
    return _READS[0] - before


def _tensor_part(value):
    """One part of a read_batch result as data: type, dtype, shape and values (as ints, whatever the type)."""
    array = isinstance(value, (torch.Tensor, np.ndarray))
    return {"type": describe(value), "dtype": str(getattr(value, "dtype", "")),
            "shape": list(value.shape) if array else None, "values": value.tolist() if array else None}


def _pair(got):
    """A read_batch result as data: {"type": "tuple", "x": ..., "y": ...}, or its type."""
    if not (isinstance(got, tuple) and len(got) == 2):
        return {"type": describe(got)}
    return {"type": "tuple", "x": _tensor_part(got[0]), "y": _tensor_part(got[1])}


def read_batches(file, block, stride, batches):
    """For each batch of indices: ``ds.read_batch(batch)`` as data (or the exception), the memmap reads it took, and
    the per-item reads ``[ds[i] for i in batch]`` (``per_item``). Reads are counted as in :func:`getitems`."""
    np.memmap = CountingMemmap
    module = load_submission("tokens")
    path = write_tokens("tokens.bin", **file)
    ds = module.TokenWindows(path, block, stride=stride, dtype=np.dtype(file["dtype"]))
    out = []
    for batch in batches:
        per_item = [_item(ds, i) for i in batch]
        before = _READS[0]
        try:
            got = ds.read_batch(list(batch))
        except NotImplementedError:
            raise
        except Exception as exc:
            out.append({"error": type(exc).__name__, "message": error_text(exc, 200), "per_item": per_item})
            continue
        out.append(dict(_pair(got), reads=_READS[0] - before, per_item=per_item))
    return out


class WholeBatches(torch.utils.data.Dataset):
    """The handout's recipe: ``ds.read_batch`` behind a loader with ``batch_size=None`` over a BatchSampler."""

    def __init__(self, windows):
        self.windows = windows

    def __len__(self):
        return len(self.windows)

    def __getitem__(self, indices):
        return self.windows.read_batch(indices)


def whole_batches_in_workers(file, block, stride, batch_size, start_method, workers):
    """Whole batches of ``read_batch`` from a loader with real workers, and the same batches read in this process."""
    module = load_submission("tokens")
    path = write_tokens("tokens.bin", **file)
    ds = module.TokenWindows(path, block, stride=stride, dtype=np.dtype(file["dtype"]))
    len(ds), ds.read_batch([0])  # opened in the parent: workers must still work from the path alone
    sampler = torch.utils.data.BatchSampler(torch.utils.data.SequentialSampler(range(len(ds))), batch_size, False)
    in_process = [_batch(ds.read_batch(indices)) for indices in sampler]
    batches = tagged_run(WholeBatches(ds), start_method, num_workers=workers, sampler=sampler, batch_size=None)
    return {"in_process": in_process, "batches": [dict(_batch(data), worker=w, pid=pid) for w, pid, data in batches]}


def _item(ds, i):
    """ds[i] as a window, or {"error": type, "message": ...}."""
    try:
        return _window(ds[i])
    except NotImplementedError:
        raise
    except Exception as exc:
        return {"error": type(exc).__name__, "message": error_text(exc, 200)}


def construct(file_bytes, cases):
    """TokenWindows(...) on a file of `file_bytes` bytes for each kwargs dict: 'ok' or 'ExcType: message'."""
    module = load_submission("tokens")
    with open("raw.bin", "wb") as f:
        f.write(bytes(range(256)) * (file_bytes // 256) + bytes(file_bytes % 256))
    path = os.path.abspath("raw.bin")

    def build(kwargs):
        kwargs = dict(kwargs, dtype=np.dtype(kwargs.get("dtype", "uint16")))
        return lambda: module.TokenWindows(path, **kwargs)

    return [construction_outcome(build(kwargs)) for kwargs in cases]


#: Pickles longer than this come back as their length only (the checks need far less).
PICKLE_BYTES_RETURNED = 1 << 16


def pickled(obj):
    """``pickle.dumps(obj)`` handed over as data: {"base64": ...}, or {"too_large": n bytes}.

    The check measures the size from the bytes it receives; the pickling
    itself runs here, in the student's process (see the check's docstring).
    """
    data = pickle.dumps(obj)
    if len(data) > PICKLE_BYTES_RETURNED:
        return {"too_large": len(data)}
    return {"base64": base64.b64encode(data).decode("ascii")}


def laziness(file_mb, block):
    """__init__, len(), three windows and a batch of three over a large file, for the zygote to measure peak memory.

    The file is sparse (all zeros, no disk blocks): reading it whole would
    raise this process's peak memory by its size, which the sandbox's zygote
    measures from outside; a memmap touches only a few pages. Nothing is
    pickled here (a pickle of the tokens would raise the peak too: that is
    :func:`pickles`'s to show). ``windows_read`` counts the reads that gave
    an (x, y) pair of ``block`` values each, whatever their values;
    ``mapped_before_use`` says whether the file was memory-mapped after
    __init__ and len() alone, before any window was read.
    """
    module = load_submission("tokens")
    path = os.path.abspath("large.bin")
    with open(path, "wb") as f:
        f.truncate(file_mb << 20)
    ds = module.TokenWindows(path, block)
    length = len(ds)
    mapped_before_use = _maps(path)
    n = ((file_mb << 20) // 2) - block  # the documented len (uint16, stride 1): a wrong len() is another check's
    read = [_item(ds, i) for i in (0, n // 2, n - 1)]
    try:
        ds.__getitems__([0, 1, n - 1])
    except NotImplementedError:
        raise
    except Exception:  # what __getitems__ returns is judged elsewhere; here only the memory it took
        pass
    windows = sum(w.get("type") == "tuple" and all(len(w[k]["values"] or []) == block for k in ("x", "y")) for w in read)
    return {"len": length, "windows_read": windows, "mapped_before_use": mapped_before_use}


def _maps(path):
    """Whether this process has ``path`` memory-mapped now, as the kernel lists it (/proc/self/maps); None where
    there is no such list (not Linux)."""
    try:
        with open("/proc/self/maps", encoding="utf-8", errors="replace") as maps:
            text = maps.read()
    except OSError:
        return None
    real = os.path.realpath(path)
    return any(line.endswith((" " + real, " " + real + " (deleted)")) for line in text.splitlines())


def pickles(n, block):
    """Pickles of a TokenWindows over a file of n uint16 tokens right after __init__, after len() alone, after three
    windows, after read_batch and after __getitems__, one use after the other (no negative index: how those count is
    another check's promise; a call that raises still counts as use)."""
    module = load_submission("tokens")
    ds = module.TokenWindows(write_tokens("tokens.bin", n, "uint16", 3, 65536), block)
    out = {"pickle_after_init": pickled(ds)}
    length = len(ds)
    out["pickle_after_len"] = pickled(ds)
    for i in (0, length // 2, length - 1):
        _item(ds, i)
    out["pickle_after_use"] = pickled(ds)
    for method in ("read_batch", "__getitems__"):
        try:
            getattr(ds, method)([0, 1, length - 1])
        except Exception:  # NotImplementedError too: what it returns is other checks' promise, here only what it leaves
            pass
        out[f"pickle_after_{method.strip('_')}"] = pickled(ds)
    return dict(out, len=length)


def in_workers(files, block, stride, batch_size, start_method, workers):
    """Batches of a loader with ``workers`` real workers over one ConcatDataset of a TokenWindows per file of ``files``
    (each in its own dtype), every one already used in the parent (len() and its first window), and the same loader's
    batches in this process. A dataset whose construction, len() or first window raises here is left out (named in
    ``left_out``): what it does in this process is other checks' to judge, and the workers' sameness is judged on the
    rest. Workers under spawn and forkserver get every dataset pickled, dtype and all, an empty file's too."""
    module = load_submission("tokens")
    datasets, left_out = [], []
    for k, file in enumerate(files):
        path = write_tokens(f"tokens{k}.bin", **file)
        try:
            ds = module.TokenWindows(path, block, stride=stride, dtype=np.dtype(file["dtype"]))
            if len(ds):
                ds[0]  # opened in the parent: workers must still work from the path alone
        except NotImplementedError:
            raise
        except Exception as exc:
            left_out.append({"file": k, "error": error_text(exc, 200)})
            continue
        datasets.append(ds)
    data = torch.utils.data.ConcatDataset(datasets)
    in_process = [_batch(b) for b in torch.utils.data.DataLoader(data, batch_size=batch_size)]
    batches = tagged_run(data, start_method, num_workers=workers, collate_fn=default_collate, batch_size=batch_size)
    return {"probe_pid": os.getpid(), "in_process": in_process, "left_out": left_out,
            "batches": [dict(_batch(data), worker=w, pid=pid) for w, pid, data in batches]}


def _batch(data):
    """An (x, y) batch as data: the values and dtype of each part (of whatever came back: its description)."""
    if not (isinstance(data, (tuple, list)) and len(data) == 2 and all(hasattr(part, "tolist") for part in data)):
        return {"x": describe(data), "y": None, "dtype": None}
    return {"x": data[0].tolist(), "y": data[1].tolist(), "dtype": [str(data[0].dtype), str(data[1].dtype)]}


def pin_memory(file, block, batch_size, stride=1):
    """A pin_memory=True loader over TokenWindows: pinned flags, warnings, and GPU round trip; the batches of a plain loader."""
    module = load_submission("tokens")
    path = write_tokens("tokens.bin", **file)
    ds = module.TokenWindows(path, block, stride=stride, dtype=np.dtype(file["dtype"]))
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        batches = list(torch.utils.data.DataLoader(ds, batch_size=batch_size, pin_memory=True))
    unpinned = torch.utils.data.DataLoader(ds, batch_size=batch_size)
    report = {
        "unpinned_values": [[t.tolist() for t in b] for b in unpinned],
        "cuda": torch.cuda.is_available(),
        "warnings": [str(w.message) for w in caught],
        "batch_types": [type(b).__name__ for b in batches],
        "pinned": [[bool(t.is_pinned()) for t in b] for b in batches],
        "values": [[t.tolist() for t in b] for b in batches],
    }
    if torch.cuda.is_available():
        copies = [[t.to("cuda", non_blocking=True) for t in b] for b in batches]
        torch.cuda.synchronize()
        report["gpu_equal"] = all(torch.equal(c.cpu(), t) for b, cb in zip(batches, copies) for t, c in zip(b, cb))
        report["device"] = torch.cuda.get_device_name(0)
    return report


def _tiny_windows(module):
    np.arange(8, dtype=np.uint16).tofile("tiny.bin")
    ds = module.TokenWindows("tiny.bin", 2)
    return len(ds), ds[0]


def preflight(module):
    """Each entry point called once on a tiny input (see common.entry_points)."""
    return {"TokenWindows": lambda: _tiny_windows(module)}
