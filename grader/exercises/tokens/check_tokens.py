"""Checks of exercise 5, TokenWindows: every promise of its docstring, each check judging one.

A check looks only at what its promise needs: a window's values are compared
as ints whatever came back (that x and y are int64 tensors is
check_windows_are_int64_tensors_of_length_t's promise); negative indices,
__getitems__ and real workers are compared with the same submission's own
per-item reads, so that they prove the indexing, the batching and the
workers, not the windows again.
"""

from __future__ import annotations

from grader.engine.checking import ON_GPU, POOL_WORKERS, START_METHODS, WITHOUT_GPU, WORKER_TIMEOUT_S, expect, show
from grader.exercises.tokens.windows import (
    ENDS,
    LAST,
    NONE,
    OUT_OF_RANGE,
    PIN_STRIDE,
    UINT16_FILE,
    batch_type_problem,
    call_text,
    expected_len,
    file_spec,
    file_words,
    getitems_run,
    pickle_size,
    read_batch_run,
    type_problem,
    value_problem,
    want_window,
    well_formed,
    window_runs,
)


def check_rejects_bad_sizes(ctx):
    """Proves block_size < 1, stride < 1 and a file whose size is not a multiple of the dtype's size raise ValueError, and valid arguments do not."""
    cases = ctx.boundaries(block_size_0={"block_size": 0}, block_size_negative={"block_size": -1},
                           stride_0={"block_size": 4, "stride": 0}, stride_negative={"block_size": 4, "stride": -2},
                           size_not_a_multiple={"block_size": 4, "dtype": "uint32"}, valid={"block_size": 4})
    outcomes = ctx.probe("tokens:construct", file_bytes=1002, cases=cases)  # 1002 bytes: whole uint16s, not whole uint32s
    for case, outcome in zip(cases[:5], outcomes[:5]):
        expect(outcome.startswith("ValueError"), f"TokenWindows(<1002-byte file>, **{case}) should raise ValueError, got: {outcome}")
    expect(outcomes[5] == "ok", f"TokenWindows(<1002-byte file>, block_size=4) should work, got: {outcomes[5]}")


def check_len_counts_the_windows_that_fit(ctx):
    """Proves len(ds) == max(0, (n - block_size - 1) // stride + 1) across file sizes, block sizes and strides.

    An empty file's len is 0 (len() needs only the file's size, so it opens no memmap, which an empty file could not
    give); a constructor that raises on the empty file is the laziness checks' to judge
    (check_getitems_of_no_index_is_empty), not this one's.
    """
    rng = ctx.rng("len")
    boundaries = ctx.boundaries(empty_file=(0, 1, 1), one_token=(1, 1, 1), one_window_exactly=(2, 1, 1), last_token_is_a_target=(10, 9, 1),
                                one_token_short=(10, 10, 1), stride_remainder=(11, 4, 3), stride_exact=(12, 4, 7),
                                stride_larger_than_block=(30, 2, 5))
    combos = sorted({(int(n), int(b), int(s)) for n, b, s in zip(rng.integers(1, 200, 25), rng.integers(1, 40, 25), rng.integers(1, 12, 25))}
                    | set(boundaries))
    cases = [{"n": n, "block": block, "stride": stride} for n, block, stride in combos]
    for case, got in zip(cases, ctx.probe("tokens:lengths", cases=cases)):
        spec = {"n": case["n"], "dtype": "uint16"}
        want = expected_len(case["n"], case["block"], case["stride"])
        if case["n"] == 0 and isinstance(got, str) and got.startswith("in __init__: "):
            continue  # the constructor opened the empty file: laziness, judged by the empty-file checks
        expect(got == want, f"len({call_text(spec, case['block'], case['stride'])}) returned {got}, expected {want}")


def check_windows_are_x_and_y_shifted_by_one(ctx):
    """Proves ds[i] is (x, y): the first and last block_size tokens of window [i*stride, i*stride + block_size + 1),
    ids above 32767 intact, in uint16 (the default dtype, left out), uint32 and int32 files given as pathlib.Path.

    Judges the values as ints, whatever x and y are: their type is
    check_windows_are_int64_tensors_of_length_t's promise.
    """
    for spec, tokens, case, items in window_runs(ctx):
        block, stride = case["block"], case["stride"]
        length = expected_len(spec["n"], block, stride)
        for i, item in zip(case["indices"], items):
            problem = value_problem(f"{call_text(spec, block, stride)}[{i}]", block, want_window(tokens, block, stride, i, length), item)
            expect(problem is None, problem)


def check_windows_are_int64_tensors_of_length_t(ctx):
    """Proves x and y of ds[i] are int64 tensors of shape (block_size,), whatever the file's dtype, and tensors of their
    own (never views of the memmap, also for an int64 file that needs no widening).

    Judges types, dtypes and shapes only: the values are
    check_windows_are_x_and_y_shifted_by_one's promise.
    """
    for spec, _tokens, case, items in window_runs(ctx):
        for i, item in zip(case["indices"], items):
            problem = type_problem(f"{call_text(spec, case['block'], case['stride'])}[{i}]", case["block"], item)
            expect(problem is None, problem)
    # An int64 file needs no widening, so x and y could be views of the read-only memmap: they must be tensors of their
    # own (a write into them would fault, and they would change with the file).
    (n, block) = ctx.boundaries(int64_file_no_widening=(64, 8))[0]
    got = ctx.probe("tokens:windows_own_memory", n=n, block=block, dtype="int64", case="on a file of 64 int64 tokens")
    changed = [name for name in ("x", "y") if got.get(name)]
    expect(not changed, f"TokenWindows(<{n} int64 tokens>, block_size={block}, dtype=numpy.int64)[0]: {' and '.join(changed)} "
           "changed when the file was rewritten after the read, so they view the read-only memmap; copy the window "
           "(window.astype(np.int64) copies even when the dtype is already int64; copy=False does not)")
    # A window written into by the training loop (masking, say) and the dataset read again: the same window as before.
    expect(not got.get("reread_changed"), f"TokenWindows(<{n} int64 tokens>, block_size={block}, dtype=numpy.int64): after "
           "a write into the x and y that ds[1] returned, ds[1] read again gave other values, so the dataset hands out "
           "the same tensors again (a cache of windows?); make each read return new tensors")


def check_negative_and_out_of_range_indices(ctx):
    """Proves an index -len <= i < 0 gives what ds[len + i] gives, and any other index raises IndexError.

    Compares ds[i] with the same submission's ds[len + i]: what a window
    holds is check_windows_are_x_and_y_shifted_by_one's promise.
    """
    spec = file_spec(ctx, "indexing", n=101)
    block, stride = 8, 8
    length = expected_len(spec["n"], block, stride)  # 12
    negatives = ctx.boundaries(minus_1=-1, minus_2=-2, minus_len=-length)
    out_of_range = ctx.boundaries(index_len=length, index_len_plus_1=length + 1, index_minus_len_minus_1=-length - 1,
                                  far_above=10**6, far_below=-(10**6), beyond_int64=2**63, below_int64=-(2**63) - 1)
    indices = negatives + [length + i for i in negatives] + out_of_range
    (got,) = ctx.probe("tokens:windows", file=spec, cases=[{"block": block, "stride": stride, "indices": indices}])
    items = dict(zip(indices, got["items"]))
    call = call_text(spec, block, stride)
    for i in negatives:
        have, want = items[i], items[length + i]
        if "error" in want:
            expect(False, f"{call}[{length + i}] raised {want['message']}, so {call}[{i}] had nothing to be compared with")
        expect(have == want, f"{call}[{i}] with len {length} should give what {call}[{length + i}] gives (negative indices count "
               f"from the end), got {show(have.get('message') or have)}\n  instead of {show(want)}")
    for i in out_of_range:
        item = items[i]
        expect(item.get("error") == "IndexError", f"{call}[{i}] with len {length} should raise IndexError, got {item.get('error') or 'a window'}")


def check_getitems_returns_the_per_item_windows(ctx):
    """Proves ds.__getitems__(indices) returns a list of (x, y) pairs equal to [ds[i] for i in indices] (random batches
    with repeats and negative indices, one index), and raises where ds[i] raises.

    Compares with the same submission's per-item reads, values and types:
    what a window holds is the window checks' promise, and an empty batch
    check_getitems_of_no_index_is_empty's.
    """
    spec, block, stride, _length, batches, got = getitems_run(ctx)
    for k in (0, 1, LAST, ENDS):
        batch, result = batches[k], got[k]
        call = f"{call_text(spec, block, stride)}.__getitems__({show(batch)})"
        raised = [(i, single["error"]) for i, single in zip(batch, result["per_item"]) if "error" in single]
        if raised:
            i, error = raised[0]
            expect(result.get("error") == error, f"ds[{i}] raises {error}, so {call} should raise it too, got "
                   f"{result.get('error') or 'a result'}")
            continue
        expect("error" not in result, f"{call} raised {result.get('message')}, although ds[i] works for each of them")
        expect(result["type"] == "list" and result["items"] is not None, f"{call} returned {result['type']}; expected a list of (x, y) pairs")
        expect(len(result["items"]) == len(batch), f"{call} returned {len(result['items'])} items for {len(batch)} indices")
        for i, item, single in zip(batch, result["items"], result["per_item"]):
            expect(item == single, f"in {call}: the pair for index {i} differs from ds[{i}]:\n  ds[{i}]         {show(single)}\n"
                   f"  __getitems__ gave {show(item)}")


def check_getitems_reads_no_more_than_read_batch(ctx):
    """Proves ds.__getitems__(indices) indexes the memmap no more often than ds.read_batch(indices) does for the same batch.

    Relative to the same submission's read_batch, as the docstring says
    ("define it through read_batch"): a read_batch that reads window by
    window is check_read_batch_reads_a_batch_in_one_gather's to judge, not
    this check's. The reads are counted inside the student's process (see
    that check's docstring). Judges the reads only, on a batch without
    negative indices: what comes back is check_getitems_returns_the_per_item_windows's promise.
    """
    spec, block, stride, _length, batches, got = getitems_run(ctx)
    (k,) = ctx.boundaries(sixteen_indices_with_repeats=1)
    # Every batch of the run without negative indices whose calls returned is judged, the boundary's first; a call that
    # raises is check_getitems_returns_the_per_item_windows's to judge, unless every one raises.
    order = [k] + [j for j in range(len(batches)) if j != k]
    judged = [j for j in order if all(i >= 0 for i in batches[j]) and "error" not in got[j]
              and not isinstance(got[j]["read_batch_reads"], dict)]
    call = f"{call_text(spec, block, stride)}.__getitems__({show(batches[k])})"
    if not judged:
        expect("error" not in got[k], f"{call} raised {got[k].get('message')}, so its reads could not be counted")
        expect(False, f"read_batch of the same indices raised {got[k]['read_batch_reads']['message']}, so the reads of {call} "
               "had nothing to be compared with: define __getitems__ through read_batch")
    for j in judged:
        batch, result = batches[j], got[j]
        call = f"{call_text(spec, block, stride)}.__getitems__({show(batch)})"
        reference = result["read_batch_reads"]
        expect(result["reads"] <= reference, f"{call} indexed the memmap {result['reads']} times for {len(batch)} windows, "
               f"read_batch of the same indices {reference} time(s): define __getitems__ through read_batch (its rows as "
               "pairs), so the batch comes from read_batch's one gather")


def check_getitems_rejects_an_index_out_of_range(ctx):
    """Proves ds.__getitems__(indices) raises IndexError when an index is out of range, as ds[i] would: at len and at
    -len - 1, the first indices past either end, and beyond what an int64 holds either way."""
    spec, block, stride, length, batches, got = getitems_run(ctx)
    for k in OUT_OF_RANGE:
        bad = got[k]
        expect(bad.get("error") == "IndexError", f"{call_text(spec, block, stride)}.__getitems__({batches[k]}) with len {length} "
               f"should raise IndexError (valid indices are -{length} <= i < {length}), got {bad.get('error') or 'a result'}")


def check_getitems_of_no_index_is_empty(ctx):
    """Proves ds.__getitems__([]) returns [], on a token file and on an empty file."""
    spec, block, stride, _length, _batches, got = getitems_run(ctx)
    call = f"{call_text(spec, block, stride)}.__getitems__([])"
    expect(got[NONE].get("items") == [], f"{call} should return [] (no window to read), got "
           f"{got[NONE].get('message') or got[NONE].get('type')}")
    (empty,) = ctx.boundaries(empty_file={"n": 0, "dtype": "uint16", "seed": 0, "high": 2})
    (nothing,) = ctx.probe("tokens:getitems", file=empty, block=1, stride=1, batches=[[]], case=f"on {file_words(empty)}")
    expect(nothing.get("items") == [], f"{call_text(empty, 1, 1)}.__getitems__([]) should return [] (no window to read), "
           f"got {nothing.get('message') or nothing.get('type')}")


# ---------------------------------------------------------------- read_batch


def check_read_batch_is_two_int64_tensors_of_shape_b_by_t(ctx):
    """Proves ds.read_batch(indices) returns (x, y), two int64 tensors of shape (len(indices), block_size), also for no
    indices (shape (0, block_size)), on a token file and on an empty file.

    Judges types, dtypes and shapes only, of batches whose indices all work
    for ds[i] (the empty batch always does): the values, and raising where
    ds[i] raises, are check_read_batch_equals_the_stacked_per_item_reads's promise.
    """
    spec, block, stride, _length, batches, got = read_batch_run(ctx)
    for k in (0, 1, LAST, NONE, ENDS):
        batch, result = batches[k], got[k]
        if any("error" in single for single in result["per_item"]):
            continue  # ds[i] raises for one of them: what read_batch does then is the rows check's promise
        problem = batch_type_problem(f"{call_text(spec, block, stride)}.read_batch({show(batch)})", len(batch), block, result)
        expect(problem is None, problem)
    (empty,) = ctx.boundaries(empty_file={"n": 0, "dtype": "uint16", "seed": 0, "high": 2})
    (nothing,) = ctx.probe("tokens:read_batches", file=empty, block=3, stride=1, batches=[[]], case=f"on {file_words(empty)}")
    problem = batch_type_problem(f"{call_text(empty, 3, 1)}.read_batch([])", 0, 3, nothing)
    expect(problem is None, problem)


def check_read_batch_equals_the_stacked_per_item_reads(ctx):
    """Proves row k of ds.read_batch(indices)'s x and y is ds[indices[k]]'s x and y (random batches with repeats and
    negative indices, one index), and that it raises where ds[i] raises.

    Compares the values as ints with the same submission's per-item reads,
    whatever their type, where ds[i] gave a window of block_size tokens: the
    types are check_read_batch_is_two_int64_tensors_of_shape_b_by_t's
    promise, and what a window holds the window checks'.
    """
    spec, block, stride, _length, batches, got = read_batch_run(ctx)
    compared = raised_alike = 0
    for k in (0, 1, LAST, ENDS):  # the out-of-range boundaries are check_read_batch_rejects_an_index_out_of_range's
        batch, result = batches[k], got[k]
        call = f"{call_text(spec, block, stride)}.read_batch({show(batch)})"
        raised = [(i, single["error"]) for i, single in zip(batch, result["per_item"]) if "error" in single]
        if raised:
            i, error = raised[0]
            expect(result.get("error") == error, f"ds[{i}] raises {error}, so {call} should raise it too, got "
                   f"{result.get('error') or 'a result'}")
            raised_alike += 1
            continue
        expect("error" not in result, f"{call} raised {result.get('message')}, although ds[i] works for each of them")
        expect(result["type"] == "tuple", f"{call} returned {result['type']}; expected a tuple (x, y)")
        for name in ("x", "y"):
            rows = result[name]["values"]
            expect(rows is not None, f"{call}: {name} is {result[name]['type']}; expected the {len(batch)} rows of the batch")
            expect(len(rows) == len(batch), f"{call}: {name} has {len(rows)} rows for {len(batch)} indices")
            for k, (i, row, single) in enumerate(zip(batch, rows, result["per_item"])):
                if not well_formed(single, block):
                    continue  # ds[i] gave no window of block_size tokens: that is the window checks' to judge
                compared += 1
                want = single[name]["values"]
                expect(row == want, f"in {call}: row {k} of {name} differs from ds[{i}]'s {name}:\n"
                       f"  ds[{i}]         {show(want)}\n  read_batch gave {show(row)}")
    expect(compared > 0 or raised_alike > 0, "ds[i] gave no window of block_size tokens for any index of these batches, so read_batch's rows "
           "had nothing to be compared with")


def check_read_batch_reads_a_batch_in_one_gather(ctx):
    """Proves ds.read_batch(indices) reads a batch from the memmap with one indexing operation (one gather: x and y
    come from the same (B, T + 1) block, not from two reads).

    The reads are counted inside the student's process (the probe replaces
    np.memmap with a counting subclass before the submission is imported), so
    a read through a plain ndarray view of the memmap goes uncounted. Judges
    the reads only, on a batch without negative indices: what comes back is
    the other read_batch checks' promise.
    """
    spec, block, stride, _length, batches, got = read_batch_run(ctx)
    (k,) = ctx.boundaries(sixteen_indices_with_repeats=1)
    # Every batch of the run without negative indices is judged, the boundary's first; a call that raises is the other
    # read_batch checks' to judge (an index the submission counts out of range, say), unless every one raises.
    order = [k] + [j for j in range(len(batches)) if j != k]
    judged = [j for j in order if all(i >= 0 for i in batches[j]) and "error" not in got[j]]
    call = f"{call_text(spec, block, stride)}.read_batch({show(batches[k])})"
    expect(judged, f"{call} raised {got[k].get('message')}, so its reads could not be counted")
    for j in judged:
        batch, result = batches[j], got[j]
        call = f"{call_text(spec, block, stride)}.read_batch({show(batch)})"
        expect(result["reads"] <= 1, f"{call} indexed the memmap {result['reads']} times for {len(batch)} windows: gather the "
               "whole batch with one fancy index (a (B, T + 1) array of offsets), not one read per window, nor one for x and "
               "one for y")


def check_read_batch_rejects_an_index_out_of_range(ctx):
    """Proves ds.read_batch(indices) raises IndexError when an index is out of range, as ds[i] would: at len and at
    -len - 1, the first indices past either end, and beyond what an int64 holds either way."""
    spec, block, stride, length, batches, got = read_batch_run(ctx)
    for k in OUT_OF_RANGE:
        expect(got[k].get("error") == "IndexError", f"{call_text(spec, block, stride)}.read_batch({batches[k]}) with len {length} "
               f"should raise IndexError (valid indices are -{length} <= i < {length}), got {got[k].get('error') or 'a result'}")


def check_read_batch_in_real_workers(ctx):
    """Proves whole batches of read_batch (a loader with batch_size=None over a BatchSampler, the docstring's recipe)
    come out of real workers (fork, forkserver) as read_batch gives them in the main process.

    Compares the values with the same submission's in-process read_batch of
    each index list: what a batch holds and its dtype are the other
    read_batch checks' promises (a loader with batch_size=None also turns
    NumPy arrays into tensors). Pool sizes as in check_same_batches_in_real_workers.
    Not under spawn, whose pool costs seconds (a fresh interpreter imports
    torch): forkserver workers receive the dataset pickled as spawn's do,
    and check_same_batches_in_real_workers runs spawn on the same dataset.
    """
    spec = file_spec(None, "whole-batches", n=200)  # the same for every seed: the sameness is judged, not the values
    ((block, stride, batch_size),) = ctx.boundaries(short_final_batch=(8, 5, 4))  # 39 windows: batches of 4, then 3
    for method in [m for m in START_METHODS if m != "spawn"]:
        got = ctx.probe("tokens:whole_batches_in_workers", timeout=WORKER_TIMEOUT_S, file=spec, block=block, stride=stride,
                        batch_size=batch_size, start_method=method, workers=POOL_WORKERS[method],
                        case=f"in {POOL_WORKERS[method]} {method} worker(s), on {file_words(spec)}")
        want, batches = got["in_process"], got["batches"]
        odd = next((show(b["x"]) for b in want if b["dtype"] is None), None) if want else "no batch"
        expect(odd is None, f"read_batch of {call_text(spec, block, stride)} gave {odd} in the main process, not an (x, y) "
               "pair of arrays, so the workers' whole batches had nothing to be compared with")
        expect(len({b["pid"] for b in batches}) == POOL_WORKERS[method],
               f"with {method} workers: batches should come from {POOL_WORKERS[method]} worker process(es)")
        expect(len(batches) == len(want), f"with {method} workers: expected {len(want)} whole batches, as in the main process, "
               f"got {len(batches)}")
        for i, (batch, exp) in enumerate(zip(batches, want)):
            have, exp = {k: batch[k] for k in ("x", "y")}, {k: exp[k] for k in ("x", "y")}
            expect(have == exp, f"with {method} workers, whole batch {i} of {call_text(spec, block, stride)}.read_batch "
                   f"differs from the main process's:\n  main process {show(exp)}\n  workers      {show(have)}")


def check_pickles_small_after_init_and_use(ctx):
    """Proves the dataset pickles small (the path and the sizes) right after __init__, and after each use: len(),
    indexing, read_batch and __getitems__.

    The pickles are made inside the student's process, where the student's
    code runs; their size is measured here from the bytes handed over. The
    file holds 100,000 tokens (200 kB), so a pickle that carries them cannot
    pass, and a window is 4,097 tokens (8 kB), so neither can one that keeps a
    window read earlier (a read-ahead cache on the instance). That an unpickled copy works is check_same_batches_in_real_workers's
    promise (spawn and forkserver workers get one).
    """
    got = ctx.probe("tokens:pickles", n=100_000, block=4096, case="on a file of 100,000 uint16 tokens, block_size=4096")
    whens = ctx.boundaries(after_init=("pickle_after_init", "right after __init__"), after_len=("pickle_after_len", "after len()"),
                           after_indexing=("pickle_after_use", "after len() and indexing"),
                           after_read_batch=("pickle_after_read_batch", "after len(), indexing and read_batch"),
                           after_getitems=("pickle_after_getitems", "after len(), indexing, read_batch and __getitems__"))
    for key, when in whens:
        size = pickle_size(got[key])
        expect(size is not None, f"pickle.dumps(TokenWindows(...)) {when} did not give pickle data")
        expect(size < 4096, f"pickle.dumps(TokenWindows(...)) {when} is {size:,} bytes: store the path and sizes, "
               "open the memmap lazily, and leave an open np.memmap out of the pickled state (__getstate__)")


def check_never_reads_the_file_whole(ctx):
    """Proves the file is never read whole, nor widened whole: peak memory stays flat while __init__, len(), three
    windows and a batch of three over a 60 MB file run.

    Peak memory is measured from outside the student's process (the
    sandbox's zygote, from the kernel's accounting); nothing is pickled
    there. The three windows must come back as (x, y) pairs of block_size
    tokens (their values are the window checks' promise). And the memmap is
    opened on first use: after __init__ and len() alone, the kernel lists no
    mapping of the file in the process (where it keeps such a list).
    """
    (file_mb,) = ctx.boundaries(file_of_60_mb=60)
    result = ctx.run_probe("tokens:laziness", file_mb=file_mb, block=64,  # under the sandbox's 64 MB file-size limit
                           case="on a 60 MB token file (all zeros), block_size=64")
    expect(result.data["windows_read"] == 3, "ds[0], ds[n // 2] and ds[n - 1] of a 60 MB token file did not all give an (x, y) "
           "pair of block_size tokens each, so the memory that reading takes could not be judged")
    expect(result.data.get("mapped_before_use") is not True, "TokenWindows(...) and len() over a 60 MB token file left the "
           "file memory-mapped before any window was read (the kernel's list of this process's mappings shows it): "
           "open the memmap on first use; __init__ and len() need only the file's size (os.path.getsize)")
    expect(result.rss_growth_mb < 30, f"TokenWindows(...), len(), 3 windows and a batch of 3 of a 60 MB token file raised "
           f"peak memory by {result.rss_growth_mb} MB: the file was read (or widened) whole; use np.memmap so only the "
           "touched pages are read, and widen one window at a time")


def check_same_batches_in_real_workers(ctx):
    """Proves a DataLoader with real workers (fork, forkserver, spawn) over datasets already used in the parent yields
    the batches it yields in the main process, for token files of several dtypes and an empty one.

    Compares the workers' batches with the same submission's in-process
    loader (num_workers=0), values and dtypes: what a window holds is the
    window checks' promise, and the pickle's size check_pickles_small_after_init_and_use's.
    The loader reads one ConcatDataset of a TokenWindows per file: uint16
    (the default dtype), int32 ids beyond 65535 (a copy that forgets its
    dtype reads other values) and an empty file (a copy that maps its file as
    it is unpickled cannot even start); a dataset that already fails in the
    main process is left out, as other checks judge that. fork and
    forkserver pools have 2 workers; spawn, which proves that the datasets
    pickle into a fresh interpreter, has 1 (see POOL_WORKERS).
    """
    # The same for every seed: the sameness is judged, not the values
    files = [file_spec(None, "workers", n=200), *ctx.boundaries(
        int32_ids_through_the_pickle=file_spec(None, "workers-int32", n=120, dtype="int32", high=2**31),
        empty_file_through_the_pickle=file_spec(None, "workers-empty", n=0))]
    words = "token files of 200 uint16, 120 int32 and 0 tokens (one ConcatDataset)"
    ((block, stride, batch_size),) = ctx.boundaries(short_final_batch=(8, 5, 4))  # 39 + 23 windows: batches of 4, then 2
    for method in START_METHODS:
        got = ctx.probe("tokens:in_workers", timeout=WORKER_TIMEOUT_S, files=files, block=block, stride=stride,
                        batch_size=batch_size, start_method=method, workers=POOL_WORKERS[method],
                        case=f"in {POOL_WORKERS[method]} {method} worker(s), on {words}")
        want, batches = got["in_process"], got["batches"]
        first = next((left["error"] for left in got["left_out"] if left["file"] == 0), None)
        expect(first is None, f"TokenWindows(<file of 200 uint16 tokens>, block_size={block}, stride={stride}), len() and its "
               f"first window raised {first} in the main process, so the workers' batches had nothing to be compared with")
        odd = next((show(b["x"]) for b in want if b["dtype"] is None), None) if want else "no batch"
        expect(odd is None, f"a DataLoader without workers over TokenWindows(..., block_size={block}, stride={stride}) gave "
               f"{odd}, not (x, y) batches of tensors, so the workers' batches had nothing to be compared with")
        expect(len({b["pid"] for b in batches}) == POOL_WORKERS[method],
               f"with {method} workers: batches should come from {POOL_WORKERS[method]} worker process(es)")
        expect(len(batches) == len(want), f"with {method} workers: expected {len(want)} batches, as in the main process, got {len(batches)}")
        for i, (batch, exp) in enumerate(zip(batches, want)):
            have = {k: batch[k] for k in exp}
            expect(have == exp, f"with {method} workers, batch {i} of TokenWindows(..., block_size={block}, stride={stride}) "
                   f"over {words} (batch_size={batch_size}) differs from the main process's:\n  main process {show(exp)}\n"
                   f"  workers      {show(have)}\n  (a worker under spawn or forkserver gets each dataset pickled: it must "
                   "keep its dtype, and open its file only when it reads)")


@ON_GPU
def check_pin_memory_on_gpu(ctx):
    """Proves (x, y) batches come out of a pin_memory=True loader pinned, and a non_blocking copy to the GPU equals them."""
    report = ctx.probe("tokens:pin_memory", timeout=WORKER_TIMEOUT_S, file=UINT16_FILE, block=8, batch_size=4, stride=PIN_STRIDE)
    expect(report["cuda"], "CUDA is not available in the sandbox, so pinning could not be checked")
    expect(all(all(p) for p in report["pinned"]), f"not every tensor of the batches was pinned: {show(report['pinned'])}")
    expect(report.get("gpu_equal"), "a non_blocking copy to the GPU differs from the CPU batch")


@WITHOUT_GPU
def check_pin_memory_without_accelerator(ctx):
    """Proves that without an accelerator pin_memory=True is ignored with PyTorch's warning, the (x, y) batches stay those
    of a plain loader and come back unpinned."""
    report = ctx.probe("tokens:pin_memory", file=UINT16_FILE, block=8, batch_size=4, stride=PIN_STRIDE)
    expect(report["values"] == report["unpinned_values"], "with pin_memory=True the windows differ from those of a plain loader")
    expect(not any(any(p) for p in report["pinned"]), "tensors came back pinned although there is no accelerator")
    expect(any("accelerator" in w for w in report["warnings"]), "PyTorch's 'no accelerator is found' warning was not raised")
