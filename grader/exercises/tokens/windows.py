"""The cases and judges of the tokens checks: token files in words, the documented windows, one window's values and types.

Shared by the checks of grader/exercises/tokens/check_tokens.py, each of which
judges one promise with them.
"""

from __future__ import annotations

import base64

import numpy as np

from grader.engine.checking import shared_probe, show
from grader.shared.token_data import token_data

UINT16_FILE = {"n": 300, "dtype": "uint16", "seed": 0, "high": 65536}  # ids above 32767 catch int16 views
#: The pin_memory checks' stride: (300 - 8) % 5 != 0, so a len() one too long (check_len_counts_the_windows_that_fit's) does not show there.
PIN_STRIDE = 5


def file_spec(ctx, name, n=300, dtype="uint16", high=65536):
    """A token file drawn from the run's seed (``ctx`` None: the same file for every seed, as the worker checks use)."""
    seed = int(ctx.rng(name).integers(0, 2**31)) if ctx is not None else 20_000 + n
    return {"n": n, "dtype": dtype, "seed": seed, "high": high}


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
    before = f", a path another dataset read as {spec['read_before_as']} before" if spec.get("read_before_as") else ""
    return (f"TokenWindows(<file of {spec['n']} {spec['dtype']} tokens{before}>, block_size={block}, stride={stride}, "
            f"dtype=np.{spec['dtype']})")


def value_problem(call, block, want, got):
    """What is wrong with the values of one window ``got`` (x and y as ints, whatever their type), or None."""
    if "error" in got:
        return f"{call} raised {got['message']}"
    if got["type"] != "tuple":
        return f"{call} returned {got['type']}; expected a tuple (x, y)"
    for name, values in zip(("x", "y"), want):
        part = got[name]
        if part["values"] is None:
            return f"{call}: {name} is {part['type']}; expected a tensor of {block} token ids"
        if part["values"] != values:
            return f"{call}:\n  expected {name} = {show(values)}\n  got      {name} = {show(part['values'])}"
    return None


def type_problem(call, block, got):
    """What is wrong with the types of one window ``got`` (int64 tensors of shape (block,)), or None."""
    if "error" in got or got["type"] != "tuple":
        return f"{call} raised {got['message']}" if "error" in got else f"{call} returned {got['type']}; expected a tuple (x, y)"
    for name in ("x", "y"):
        part = got[name]
        if part["dtype"] != "torch.int64" or part["shape"] != [block]:
            return f"{call}: {name} is {part['type']}; expected an int64 tensor of shape ({block},) (torch.from_numpy(...).long())"
    return None


#: The boundary files of the window checks: ids a float32 buffer cannot hold exactly (uint32 beyond 2**24), ids
#: beyond float64's 2**53 (int64), and a uint16 file whose last window ends on its last token (n - block - 1 = 15 * stride).
BOUNDARY_FILES = {
    "uint32_ids_beyond_2_24": ({"n": 64, "dtype": "uint32", "seed": 24, "high": 2**32}, [(5, 2)]),
    "int64_ids_beyond_2_53": ({"n": 64, "dtype": "int64", "seed": 53, "high": 2**63}, [(5, 2)]),
    "last_window_ends_on_last_token": ({"n": 53, "dtype": "uint16", "seed": 1, "high": 65536}, [(7, 3), (52, 1)]),
}


#: A file read by a dataset as its own dtype, then, in the same process, by new datasets of another dtype (the same
#: bytes, other tokens): a memmap kept per path, not per dataset, would hand the second the first one's tokens.
ONE_PATH_TWO_DTYPES = {"one_path_read_as_two_dtypes": ({"n": 64, "dtype": "uint16", "seed": 16, "high": 65536}, [(3, 2)], "int32")}


def window_runs(ctx):
    """[(spec, tokens, case, items)] of ds[i] over uint16 (the default dtype, left out), uint32 and int32 files given as
    pathlib.Path, then the boundary files (the first and the last window of each), then one path read as two dtypes in
    one process: one shared probe per file."""
    rng = ctx.rng("windows")
    runs, files = [], []
    for dtype, high in (("uint16", 65536), ("uint32", 2**32), ("int32", 2**31)):
        spec = file_spec(ctx, f"windows-{dtype}", n=int(rng.integers(60, 300)), dtype=dtype, high=high)
        shapes = sorted({(1, 1), (4, 3), (int(rng.integers(2, 20)), int(rng.integers(1, 9)))})
        files.append((spec, shapes, [int(i) for i in rng.integers(0, 2**31, 5)], None))
    files += [(spec, shapes, [], None) for spec, shapes in ctx.boundaries(**BOUNDARY_FILES)]
    files += [(spec, shapes, [], again) for spec, shapes, again in ctx.boundaries(**ONE_PATH_TWO_DTYPES)]
    for spec, shapes, draws, again in files:
        dtype, high = spec["dtype"], spec["high"]
        tokens = token_data(spec["n"], dtype, spec["seed"], high)
        views = [(spec, tokens, _cases(spec["n"], shapes, draws))]
        if again:  # the same bytes as other tokens
            other = tokens.view(again)
            views.append((dict(spec, n=len(other), dtype=again, read_before_as=dtype), other, _cases(len(other), shapes, draws)))
        default = dtype == "uint16"  # the documented default: leave the argument out
        reread = [{"dtype": view[0]["dtype"], "cases": view[2]} for view in views[1:]]
        words = f"on {file_words(spec)}" + (f", then read as {again}" if again else "")
        got = shared_probe(ctx, "tokens:windows", file=spec, cases=views[0][2], default_dtype=default, reread=reread,
                           case=words)
        pairs = [(view_spec, view_tokens, case) for view_spec, view_tokens, cases in views for case in cases]
        runs += [(view_spec, view_tokens, case, result["items"]) for (view_spec, view_tokens, case), result in zip(pairs, got)]
    return runs


def _cases(n, shapes, draws):
    """The window cases of a file of n tokens: per (block, stride), the first and the last window and the drawn ones."""
    cases = []
    for block, stride in shapes:
        length = expected_len(n, block, stride)
        cases.append({"block": block, "stride": stride, "indices": sorted({0, length - 1, *[d % length for d in draws]})})
    return cases


#: Where index_boundaries puts each batch: the checks read the probe's answers by these positions (after 2 random batches).
LAST, NONE, AT_LEN, MINUS_LEN_MINUS_1, ENDS, BEYOND_INT64, BELOW_INT64 = 2, 3, 4, 5, 6, 7, 8
#: The batches with an index out of range, each a reject check's to judge: the first past either end, and ints no int64
#: holds (converted to an int64 array unchecked, they raise OverflowError, not the IndexError ds[i] raises).
OUT_OF_RANGE = (AT_LEN, MINUS_LEN_MINUS_1, BEYOND_INT64, BELOW_INT64)


def index_boundaries(ctx, length):
    """The boundary batches of __getitems__ and read_batch, at the positions LAST..BELOW_INT64 of a run's batches: the
    last window alone, no index, an index at len, one at -len - 1 (out of range both), both ends counted from the end,
    and an index beyond int64 either way (out of range too)."""
    return ctx.boundaries(last_window=[length - 1], no_index=[], index_len=[0, length], index_minus_len_minus_1=[0, -length - 1],
                          both_ends_negative=[-length, -1, length - 1, 0], index_beyond_int64=[0, 2**63],
                          index_below_int64=[0, -(2**63) - 1])


def batch_geometry(ctx, rng, name):
    """(file spec, block, stride) of the batch checks, shaped so that the boundaries decide whatever the seed:

    - the last window ends on the file's last token ((n - block - 1) % stride == 0, so (n - block) % stride == 1
      with stride >= 2): a len() one too long (counting a window that needs one token past the end) and a len()
      rounded up (ceil division by stride) both give the right count here, since what len() counts is
      check_len_counts_the_windows_that_fit's promise, not the batch checks' on some draws;
    - block >= 2 * stride, so the offsets of window -len - 1 stay within -n: unchecked, NumPy wraps them to the
      file's end without an error of its own, and only the submission's own check can raise IndexError.
    """
    stride = int(rng.integers(2, 6))
    block = int(rng.integers(2 * stride, 2 * stride + 8))
    n = block + 1 + stride * int(rng.integers(120 // stride, 300 // stride))  # (n - block - 1) % stride == 0
    return file_spec(ctx, name, n=n), block, stride


def getitems_run(ctx):
    """(spec, block, stride, length, batches, what the probe saw), one shared probe. The batches: random with repeats
    and negative indices, random with repeats and no negative index, then index_boundaries's."""
    rng = ctx.rng("getitems")
    spec, block, stride = batch_geometry(ctx, rng, "getitems")
    length = expected_len(spec["n"], block, stride)
    batches = [[int(i) for i in rng.integers(-length, length, 16)], [int(i) for i in rng.integers(0, length, 16)],
               *index_boundaries(ctx, length)]
    got = shared_probe(ctx, "tokens:getitems", file=spec, block=block, stride=stride, batches=batches,
                       case=f"in __getitems__ on {file_words(spec)} with block_size={block}, stride={stride}")
    return spec, block, stride, length, batches, got


def read_batch_run(ctx):
    """(spec, block, stride, length, batches, what the probe saw), one shared probe, on the batches of getitems_run's
    kind: random with repeats and negative indices, random without negatives, then index_boundaries's."""
    rng = ctx.rng("read_batch")
    spec, block, stride = batch_geometry(ctx, rng, "read_batch")
    length = expected_len(spec["n"], block, stride)
    batches = [[int(i) for i in rng.integers(-length, length, 16)], [int(i) for i in rng.integers(0, length, 16)],
               *index_boundaries(ctx, length)]
    got = shared_probe(ctx, "tokens:read_batches", file=spec, block=block, stride=stride, batches=batches,
                       case=f"in read_batch on {file_words(spec)} with block_size={block}, stride={stride}")
    return spec, block, stride, length, batches, got


def batch_type_problem(call, rows, block, got):
    """What is wrong with the types of a read_batch result (two int64 tensors of shape (rows, block)), or None."""
    if "error" in got:
        return f"{call} raised {got['message']}"
    if got["type"] != "tuple":
        return f"{call} returned {got['type']}; expected a tuple (x, y) of two tensors"
    for name in ("x", "y"):
        part = got[name]
        if part["dtype"] != "torch.int64" or part["shape"] != [rows, block]:
            return f"{call}: {name} is {part['type']}; expected an int64 tensor of shape ({rows}, {block})"
    return None


def well_formed(window, block):
    """Whether a per-item read gave (x, y) with block values each (whatever their type)."""
    return window.get("type") == "tuple" and all(len(window[k]["values"] or []) == block for k in ("x", "y"))


def pickle_size(handed_over):
    """Bytes of a pickle the probe handed over (see grader.exercises.tokens.probe.pickled); None if it is not a pickle."""
    if "too_large" in handed_over:
        return int(handed_over["too_large"])
    data = base64.b64decode(handed_over["base64"], validate=True)
    return len(data) if data[:1] == b"\x80" and data[-1:] == b"." else None
