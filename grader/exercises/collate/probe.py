"""Probes for exercise 1, pad_collate."""

from __future__ import annotations

import warnings

import torch

from grader.inside.probes.common import Tagged, describe, error_text, load_submission, plain, tagged_run

DTYPES = {"int64": torch.int64, "int32": torch.int32, "int16": torch.int16, "int8": torch.int8, "uint8": torch.uint8}


def _tensors(case):
    dtype = DTYPES[case.get("dtype", "int64")]
    return [torch.tensor(seq, dtype=dtype) for seq in case["seqs"]]


def _report(out):
    """What pad_collate returned, as data: the type, and for each key its dtype, shape, values and whether it is
    contiguous in memory."""
    if not isinstance(out, dict):
        return {"type": describe(out)}
    keys = {}
    for key, value in out.items():
        entry = {"type": describe(value)}
        if isinstance(value, torch.Tensor):
            entry.update(dtype=str(value.dtype).removeprefix("torch."), shape=list(value.shape), values=value.tolist(),
                         contiguous=value.is_contiguous())
        keys[str(key)] = entry
    return {"type": "dict", "keys": keys}


def _writes_reach_another(tensors):
    """Whether writing into one of ``tensors`` changes another (a view of it, or an overlapping part of one buffer):
    each is written in turn (every element + 1) and restored. Slices of one buffer that do not overlap pass."""
    tensors = [t for t in tensors if t.numel()]
    for k, tensor in enumerate(tensors):
        saved = [t.clone() for t in tensors]
        try:
            tensor.add_(1)
        except Exception:  # a tensor that cannot be written in place cannot reach another either
            continue
        changed = any(not torch.equal(other, saved[j]) for j, other in enumerate(tensors) if j != k)
        for t, before in zip(tensors, saved):
            t.copy_(before)
        if changed:
            return True
    return False


def _scribble(tensors):
    """Write into every returned tensor, as a training loop may (masking more of ``labels``, say): the caller owns what
    pad_collate returns, so no later call may see these writes."""
    for tensor in tensors:
        try:
            tensor.fill_(SCRIBBLE)
        except Exception:  # a tensor that cannot be written in place cannot be seen written either
            continue


#: What the caller writes into every table it got back before the next call (a value no case holds).
SCRIBBLE = -7


def run_cases(cases):
    """Call pad_collate on each case: {"seqs": [[int]], "dtype": str, "pad_id": int or absent}.

    Per case: the returned value as data, whether the input tensors were
    left unchanged, whether an output shares memory with an input, and whether two outputs share memory; or
    the exception the call raised. The tensors are compared as objects, not
    by list position: the docstring lets pad_collate reorder the list itself.
    Every call after the first is made after the caller wrote into every
    tensor the earlier calls returned (:func:`_scribble`): a state of the
    process, so that a table kept and handed out again shows.
    """
    module = load_submission("collate")
    results = []
    for case in cases:
        batch = _tensors(case)
        tensors = list(batch)  # the objects as passed, whatever happens to the list
        before = [t.clone() for t in tensors]
        try:
            out = module.pad_collate(batch, pad_id=case["pad_id"]) if "pad_id" in case else module.pad_collate(batch)
        except NotImplementedError:
            raise
        except Exception as exc:
            results.append({"error": error_text(exc)})
            continue
        report = _report(out)
        report["inputs_unchanged"] = all(torch.equal(a, b) for a, b in zip(tensors, before))
        input_ptrs = {t.untyped_storage().data_ptr() for t in tensors if t.numel()}
        returned = [v for v in (out.values() if isinstance(out, dict) else out if isinstance(out, (tuple, list)) else [out])
                    if isinstance(v, torch.Tensor)]
        report["tensors_returned"] = len(returned)
        report["shares_memory"] = any(v.numel() and v.untyped_storage().data_ptr() in input_ptrs for v in returned)
        report["tables_share_memory"] = _writes_reach_another(returned)
        results.append(report)
        _scribble(returned)
    return results


def _batch(data):
    """A batch as data: its values (tensors as lists), the type and dtype of each part, and whether writing into one of
    its tensors changes another (as the process that reads the batch sees them)."""
    parts = list(data.items() if isinstance(data, dict) else enumerate(data) if isinstance(data, (tuple, list)) else [("", data)])
    tensors = [v for _, v in parts if isinstance(v, torch.Tensor)]
    return {"values": plain(data), "kinds": {str(k): describe(v) for k, v in parts},
            "overlap": _writes_reach_another(tensors)}


def in_workers(seqs, batch_size, pools, dtypes):
    """Batches of a DataLoader(collate_fn=pad_collate) over the sequences, batch i in ``dtypes[i % len(dtypes)]`` (one
    dtype per batch): in this process (num_workers=0), then with real workers per start method ({method: workers}). A
    batch whose pad_collate raises is ``{"raised": "<Type>"}``, in either place, and the loader goes on."""
    module = load_submission("collate")

    def dataset():  # fresh tensors for every loader: one that pad_collate modified must not change the next
        return [torch.tensor(s, dtype=getattr(torch, dtypes[(i // batch_size) % len(dtypes)])) for i, s in enumerate(seqs)]

    def batch(data):
        return data if isinstance(data, dict) and set(data) == {"raised"} else _batch(data)

    loader = torch.utils.data.DataLoader(dataset(), batch_size=batch_size, collate_fn=Tagged(module.pad_collate, catch=True))
    runs = {}
    for method, workers in pools.items():
        batches = tagged_run(dataset(), method, num_workers=workers, collate_fn=module.pad_collate, catch=True,
                             batch_size=batch_size)
        runs[method] = [{"worker": w, "pid": pid, "batch": batch(data)} for w, pid, data in batches]
    return {"in_process": [batch(b["data"]) for b in loader], "runs": runs}


def pin_memory(seqs, batch_size):
    """A pin_memory=True loader over pad_collate batches: pinned flags, warnings, and GPU round trip."""
    module = load_submission("collate")
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        dataset = [torch.tensor(s, dtype=torch.int64) for s in seqs]
        loader = torch.utils.data.DataLoader(dataset, batch_size=batch_size, collate_fn=module.pad_collate, pin_memory=True)
        batches = list(loader)
    fresh = [torch.tensor(s, dtype=torch.int64) for s in seqs]  # as given, whatever pad_collate did to the first ones
    unpinned = torch.utils.data.DataLoader(fresh, batch_size=batch_size, collate_fn=module.pad_collate)
    report = {
        "unpinned_values": [plain(b) for b in unpinned],
        "cuda": torch.cuda.is_available(),
        "warnings": [str(w.message) for w in caught],
        "batch_types": [type(b).__name__ for b in batches],
        "pinned": [[bool(v.is_pinned()) for v in b.values()] if isinstance(b, dict) else [] for b in batches],
        "values": [plain(b) for b in batches],
    }
    if torch.cuda.is_available():
        copies = [{k: v.to("cuda", non_blocking=True) for k, v in b.items()} for b in batches]
        torch.cuda.synchronize()
        report["gpu_equal"] = all(torch.equal(c[k].cpu(), b[k]) for b, c in zip(batches, copies) for k in b)
        report["device"] = torch.cuda.get_device_name(0)
    return report


def preflight(module):
    """Each entry point called once on a tiny input (see common.entry_points)."""
    return {"pad_collate": lambda: module.pad_collate([torch.tensor([1, 2])])}
