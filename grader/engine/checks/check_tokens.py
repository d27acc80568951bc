"""Checks of exercise 5, TokenWindows: every promise of its docstring."""

from __future__ import annotations

import base64

import numpy as np

from grader.engine.checks.support import ON_GPU, POOL_WORKERS, START_METHODS, WITHOUT_GPU, WORKER_TIMEOUT_S, expect, show
from grader.engine.probes.data import token_data

UINT16_FILE = {"n": 300, "dtype": "uint16", "seed": 0, "high": 65536}  # ids above 32767 catch int16 views


def file_spec(ctx, name, n=300, dtype="uint16", high=65536):
    return {"n": n, "dtype": dtype, "seed": int(ctx.rng(name).integers(0, 2**31)), "high": high}


def want_window(tokens, block, stride, i, length):
    start = (i % length) * stride
    window = tokens[start : start + block + 1].astype(np.int64).tolist()
    return window[:-1], window[1:]


def expected_len(n, block, stride):
    return max(0, (n - block - 1) // stride + 1)


def file_words(spec):
    """The token file of ``spec`` in words, for feedback."""
    if spec["n"] == 0:
        return "an empty token file (0 bytes)"
    return f"a file of {spec['n']} {spec['dtype']} tokens"


def call_text(spec, block, stride):
    return f"TokenWindows(<file of {spec['n']} {spec['dtype']} tokens>, block_size={block}, stride={stride}, dtype=np.{spec['dtype']})"


def check_rejects_bad_sizes(ctx):
    """Proves block_size < 1, stride < 1 and a file whose size is not a multiple of the dtype's size raise ValueError, and valid arguments do not."""
    cases = [{"block_size": 0}, {"block_size": -1}, {"block_size": 4, "stride": 0}, {"block_size": 4, "stride": -2},
             {"block_size": 4, "dtype": "uint32"}, {"block_size": 4}]
    outcomes = ctx.probe("tokens:construct", file_bytes=1002, cases=cases)  # 1002 bytes: whole uint16s, not whole uint32s
    for case, outcome in zip(cases[:5], outcomes[:5]):
        expect(outcome.startswith("ValueError"), f"TokenWindows(<1002-byte file>, **{case}) should raise ValueError, got: {outcome}")
    expect(outcomes[5] == "ok", f"TokenWindows(<1002-byte file>, block_size=4) should work, got: {outcomes[5]}")


def check_len_counts_the_windows_that_fit(ctx):
    """Proves len(ds) == max(0, (n - block_size - 1) // stride + 1) across file sizes, block sizes and strides."""
    rng = ctx.rng("len")
    combos = sorted({(int(n), int(b), int(s)) for n, b, s in zip(rng.integers(0, 200, 25), rng.integers(1, 40, 25), rng.integers(1, 12, 25))}
                    | {(0, 1, 1), (1, 1, 1), (2, 1, 1), (10, 9, 1), (10, 10, 1), (11, 4, 3)})
    for n, block, stride in combos:
        spec = {"n": n, "dtype": "uint16", "seed": 1, "high": 100}
        (got,) = ctx.probe("tokens:windows", file=spec, cases=[{"block": block, "stride": stride, "indices": []}],
                           case=f"on {file_words(spec)} with block_size={block}, stride={stride}")
        want = expected_len(n, block, stride)
        expect(got["len"] == want, f"len({call_text(spec, block, stride)}) returned {got['len']}, expected {want}")


def window_problem(spec, tokens, block, stride, length, i, got):
    call = f"{call_text(spec, block, stride)}[{i}]"
    if "error" in got:
        return f"{call} raised {got['message']}"
    if got["type"] != "tuple":
        return f"{call} returned {got['type']}; expected a tuple (x, y)"
    want_x, want_y = want_window(tokens, block, stride, i, length)
    for name, want in (("x", want_x), ("y", want_y)):
        part = got[name]
        if part["dtype"] != "torch.int64":
            return f"{call}: {name} is {part['type']}; expected an int64 tensor of shape ({block},)"
        if part["values"] != want:
            return f"{call}:\n  expected {name} = {show(want)}\n  got      {name} = {show(part['values'])}"
    return None


def check_windows_are_x_and_y_shifted_by_one(ctx):
    """Proves ds[i] is (x, y): the first and last block_size tokens of window [i*stride, i*stride + block_size + 1),
    as int64, ids above 32767 intact, in uint16 (the default dtype, left out), uint32 and int32 files given as pathlib.Path."""
    rng = ctx.rng("windows")
    for dtype, high in (("uint16", 65536), ("uint32", 2**32), ("int32", 2**31)):
        spec = file_spec(ctx, f"windows-{dtype}", n=int(rng.integers(60, 300)), dtype=dtype, high=high)
        tokens = token_data(spec["n"], dtype, spec["seed"], high)
        cases = []
        for block, stride in sorted({(1, 1), (4, 3), (int(rng.integers(2, 20)), int(rng.integers(1, 9)))}):
            length = expected_len(spec["n"], block, stride)
            cases.append({"block": block, "stride": stride, "indices": sorted({0, length - 1, *[int(i) for i in rng.integers(0, length, 5)]})})
        default = dtype == "uint16"  # the documented default: leave the argument out
        for case, got in zip(cases, ctx.probe("tokens:windows", file=spec, cases=cases, default_dtype=default,
                                              case=f"on {file_words(spec)}")):
            length = expected_len(spec["n"], case["block"], case["stride"])
            for i, item in zip(case["indices"], got["items"]):
                problem = window_problem(spec, tokens, case["block"], case["stride"], length, i, item)
                expect(problem is None, problem)


def check_negative_and_out_of_range_indices(ctx):
    """Proves indices -len <= i < 0 count from the end like a sequence's, and any other index raises IndexError."""
    spec = file_spec(ctx, "indexing", n=101)
    tokens = token_data(spec["n"], "uint16", spec["seed"], spec["high"])
    block, stride = 8, 8
    length = expected_len(spec["n"], block, stride)  # 12
    negatives = [-1, -2, -length]
    out_of_range = [length, length + 1, -length - 1, 10**6, -(10**6)]
    (got,) = ctx.probe("tokens:windows", file=spec, cases=[{"block": block, "stride": stride, "indices": negatives + out_of_range}])
    for i, item in zip(negatives, got["items"]):
        problem = window_problem(spec, tokens, block, stride, length, i, item)
        expect(problem is None, problem)
    for i, item in zip(out_of_range, got["items"][len(negatives):]):
        expect(item.get("error") == "IndexError", f"{call_text(spec, block, stride)}[{i}] with len {length} should raise IndexError, "
               f"got {item.get('error') or 'a window'}")


def check_getitems_reads_a_batch_in_one_gather(ctx):
    """Proves ds.__getitems__(indices) returns [ds[i] for i in indices] (random batches with repeats and negative
    indices, one index, none, none on an empty file), raises IndexError for an index out of range, and reads a batch
    from the memmap with at most two indexing operations (one gather).

    The reads are counted inside the student's process (the probe replaces
    np.memmap with a counting subclass before the submission is imported), so
    a submission that reads through a plain ndarray view of its memmap goes
    uncounted; the windows are judged here.
    """
    rng = ctx.rng("getitems")
    spec = file_spec(ctx, "getitems", n=int(rng.integers(120, 300)))
    tokens = token_data(spec["n"], "uint16", spec["seed"], spec["high"])
    block, stride = int(rng.integers(2, 12)), int(rng.integers(1, 6))
    length = expected_len(spec["n"], block, stride)
    batches = [[int(i) for i in rng.integers(-length, length, 16)], [length - 1], [], [0, length]]
    got = ctx.probe("tokens:getitems", file=spec, block=block, stride=stride, batches=batches,
                    case=f"in __getitems__ on {file_words(spec)} with block_size={block}, stride={stride}")
    for batch, result in zip(batches[:3], got[:3]):
        call = f"{call_text(spec, block, stride)}.__getitems__({show(batch)})"
        expect("error" not in result, f"{call} raised {result.get('message')}")
        expect(result["type"] == "list" and result["items"] is not None,
               f"{call} returned {result['type']}; expected a list of (x, y) pairs")
        expect(len(result["items"]) == len(batch), f"{call} returned {len(result['items'])} items for {len(batch)} indices")
        for i, item in zip(batch, result["items"]):
            problem = window_problem(spec, tokens, block, stride, length, i, item)
            expect(problem is None, f"in {call}: {problem}")
        expect(len(batch) < 2 or result["reads"] <= 2,
               f"{call} indexed the memmap {result['reads']} times for {len(batch)} windows: gather the whole batch with one "
               "fancy index (an array of window offsets), not one read per window")
    bad = got[3]
    expect(bad.get("error") == "IndexError", f"{call_text(spec, block, stride)}.__getitems__([0, {length}]) with len {length} "
           f"should raise IndexError, got {bad.get('error') or 'a result'}")
    empty = {"n": 0, "dtype": "uint16", "seed": 0, "high": 2}
    (nothing,) = ctx.probe("tokens:getitems", file=empty, block=1, stride=1, batches=[[]], case=f"on {file_words(empty)}")
    expect(nothing.get("items") == [], f"{call_text(empty, 1, 1)}.__getitems__([]) should return [] (no window to read), "
           f"got {nothing.get('message') or nothing.get('type')}")


def pickle_size(handed_over):
    """Bytes of a pickle the probe handed over (see grader.engine.probes.tokens.pickled); None if it is not a pickle."""
    if "too_large" in handed_over:
        return int(handed_over["too_large"])
    data = base64.b64decode(handed_over["base64"], validate=True)
    return len(data) if data[:1] == b"\x80" and data[-1:] == b"." else None


def check_lazy_and_pickles_small(ctx):
    """Proves the file is never read whole (peak memory stays flat on a 60 MB file) and the dataset pickles small after __init__, len() and indexing.

    Peak memory is measured from outside the student's process (the sandbox's
    zygote, from the kernel's accounting). The pickles are made inside it,
    where the student's code runs; their size is measured here from the bytes
    handed over.
    """
    result = ctx.run_probe("tokens:laziness", file_mb=60, block=64,  # under the sandbox's 64 MB file-size limit
                           case="on a 60 MB token file (all zeros), block_size=64")
    got = result.data
    for key, when in (("pickle_after_init", "right after __init__"), ("pickle_after_use", "after len() and indexing")):
        size = pickle_size(got[key])
        expect(size is not None, f"pickle.dumps(TokenWindows(...)) {when} did not give pickle data")
        expect(size < 4096, f"pickle.dumps(TokenWindows(...)) {when} is {size:,} bytes: store the path and sizes, "
               "open the memmap lazily, and leave an open np.memmap out of the pickled state (__getstate__)")
    expect(got["clone_equal"], "a pickled-and-unpickled copy returned different windows")
    expect(result.rss_growth_mb < 30, f"reading 3 windows of a 60 MB token file raised peak memory by {result.rss_growth_mb} MB: "
           "the file was read whole; use np.memmap so only the touched pages are read")


def check_same_batches_in_real_workers(ctx):
    """Proves a DataLoader with real workers (fork, forkserver, spawn) over a dataset already used in the parent yields the documented batches.

    fork and forkserver pools have 2 workers; spawn, which proves that the
    dataset pickles into a fresh interpreter, has 1 (see POOL_WORKERS).
    """
    spec = file_spec(ctx, "workers", n=200)
    tokens = token_data(spec["n"], "uint16", spec["seed"], spec["high"])
    block, stride, batch_size = 8, 5, 4
    length = expected_len(spec["n"], block, stride)
    want = [want_window(tokens, block, stride, i, length) for i in range(length)]
    for method in START_METHODS:
        got = ctx.probe("tokens:in_workers", timeout=WORKER_TIMEOUT_S, file=spec, block=block, stride=stride, batch_size=batch_size,
                        start_method=method, workers=POOL_WORKERS[method],
                        case=f"in {POOL_WORKERS[method]} {method} worker(s), on {file_words(spec)}")
        size = pickle_size(got["pickle"])
        expect(size is not None and size < 4096, f"with {method} workers: the dataset pickles to {size:,} bytes after use; "
               "workers should get only the path" if size is not None else f"with {method} workers: pickling the dataset did not give pickle data")
        xs = [row for b in got["batches"] for row in b["x"]]
        ys = [row for b in got["batches"] for row in b["y"]]
        expect(len({b["pid"] for b in got["batches"]}) == POOL_WORKERS[method],
               f"with {method} workers: batches should come from {POOL_WORKERS[method]} worker process(es)")
        for i, (x, y) in enumerate(zip(xs, ys)):
            expect((x, y) == want[i], f"with {method} workers, window {i} of {call_text(spec, block, stride)}:\n"
                   f"  expected {show(want[i])}\n  got      {show((x, y))}")
        expect(len(xs) == length, f"with {method} workers: expected {length} windows, got {len(xs)}")


@ON_GPU
def check_pin_memory_on_gpu(ctx):
    """Proves (x, y) batches come out of a pin_memory=True loader pinned, and a non_blocking copy to the GPU equals them."""
    report = ctx.probe("tokens:pin_memory", timeout=WORKER_TIMEOUT_S, file=UINT16_FILE, block=8, batch_size=4)
    expect(report["cuda"], "CUDA is not available in the sandbox, so pinning could not be checked")
    expect(all(all(p) for p in report["pinned"]), f"not every tensor of the batches was pinned: {show(report['pinned'])}")
    expect(report.get("gpu_equal"), "a non_blocking copy to the GPU differs from the CPU batch")


@WITHOUT_GPU
def check_pin_memory_without_accelerator(ctx):
    """Proves that without an accelerator pin_memory=True is ignored with PyTorch's warning and the (x, y) batches stay correct and unpinned."""
    report = ctx.probe("tokens:pin_memory", file=UINT16_FILE, block=8, batch_size=4)
    tokens = token_data(**UINT16_FILE)
    length = expected_len(UINT16_FILE["n"], 8, 1)
    want = [want_window(tokens, 8, 1, i, length) for i in range(length)]
    got = [(x, y) for b in report["values"] for x, y in zip(*b)]
    expect(got == want, "with pin_memory=True the windows differ from the documented ones")
    expect(not any(any(p) for p in report["pinned"]), "tensors came back pinned although there is no accelerator")
    expect(any("accelerator" in w for w in report["warnings"]), "PyTorch's 'no accelerator is found' warning was not raised")
