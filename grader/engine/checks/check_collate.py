"""Checks of exercise 1, pad_collate: every promise of its docstring."""

from __future__ import annotations

from grader.engine.checks.support import ON_GPU, POOL_WORKERS, START_METHODS, WITHOUT_GPU, WORKER_TIMEOUT_S, expect, show

EDGE_CASES = [
    {"seqs": [[5]]},
    {"seqs": [[]]},
    {"seqs": [[], [3, 4]]},
    {"seqs": [[], [], []]},
    {"seqs": [[7, 2, 7], [7]], "pad_id": 7},
    {"seqs": [[1, 2, 3], [4]], "pad_id": 9},
]


def random_cases(rng, count=30):
    """Random batches, smallest first, with a small vocabulary so real tokens often equal pad_id."""
    cases = []
    for _ in range(count):
        lengths = rng.integers(0, 10, size=int(rng.integers(1, 6)))
        case = {"seqs": [rng.integers(0, 5, size=int(n)).tolist() for n in lengths]}
        if rng.random() < 0.7:
            case["pad_id"] = int(rng.integers(0, 5))
        cases.append(case)
    return sorted(cases, key=lambda c: (sum(map(len, c["seqs"])), len(c["seqs"])))


def expected(case):
    """The three (B, T) tables the docstring promises, as nested lists."""
    seqs, pad = case["seqs"], case.get("pad_id", 0)
    longest = max(len(s) for s in seqs)
    ids = [s + [pad] * (longest - len(s)) for s in seqs]
    mask = [[1] * len(s) + [0] * (longest - len(s)) for s in seqs]
    labels = [[t if m else -100 for t, m in zip(row, mrow)] for row, mrow in zip(ids, mask)]
    return {"input_ids": ids, "attention_mask": mask, "labels": labels}


def call_text(case):
    dtype = case.get("dtype", "int64")
    tensors = ", ".join(f"tensor({s}{'' if dtype == 'int64' else ', dtype=torch.' + dtype})" for s in case["seqs"])
    pad = f", pad_id={case['pad_id']}" if "pad_id" in case else ""
    return f"pad_collate([{tensors}]{pad})"


def run(ctx, cases):
    return ctx.probe("collate:run_cases", cases=cases)


def first_problem(cases, results, judge):
    """Feedback for the first (smallest) case where ``judge`` finds a problem, or None."""
    for case, got in zip(cases, results):
        if "error" in got:
            return f"{call_text(case)} raised {got['error']}"
        problem = judge(case, got)
        if problem:
            return f"{call_text(case)}:\n{problem}"
    return None


def structure_problem(case, got):
    want_shape = [len(case["seqs"]), max(len(s) for s in case["seqs"])]
    if got["type"] != "dict":
        return f"  expected a dict, got {got['type']}"
    if set(got["keys"]) != {"input_ids", "attention_mask", "labels"}:
        return f"  expected the keys ['attention_mask', 'input_ids', 'labels'], got {sorted(got['keys'])}"
    for key, entry in got["keys"].items():
        if "dtype" not in entry:
            return f"  expected {key} to be a tensor, got {entry['type']}"
        if entry["dtype"] != "int64":
            return f"  expected {key} to be int64 (torch.long), got {entry['dtype']}"
        if entry["shape"] != want_shape:
            return f"  expected {key} of shape (B, T) = {tuple(want_shape)}, got {tuple(entry['shape'])}"
    return None


def values_problem(key):
    def judge(case, got):
        problem = structure_problem(case, got)
        if problem:
            return problem
        want, have = expected(case)[key], got["keys"][key]["values"]
        if want != have:
            return f"  expected {key} {show(want)}\n  got      {key} {show(have)}"
        return None

    return judge


def all_values_problem(case, got):
    for key in ("input_ids", "attention_mask", "labels"):
        problem = values_problem(key)(case, got)
        if problem:
            return problem
    return None


def check_returns_dict_of_int64_b_by_t(ctx):
    """Proves pad_collate returns a dict of exactly input_ids, attention_mask and labels, each int64 of shape (B, T)."""
    cases = EDGE_CASES[:1] + random_cases(ctx.rng("returns_dict"), 20)
    expect(not (p := first_problem(cases, run(ctx, cases), structure_problem)), p)


def check_input_ids_are_right_padded(ctx):
    """Proves row i of input_ids is batch[i] followed by pad_id (right padding, the given pad_id)."""
    cases = random_cases(ctx.rng("input_ids"))
    expect(not (p := first_problem(cases, run(ctx, cases), values_problem("input_ids"))), p)


def check_attention_mask_marks_real_tokens(ctx):
    """Proves attention_mask is 1 on the first len(batch[i]) positions of row i and 0 after."""
    cases = random_cases(ctx.rng("attention_mask"))
    expect(not (p := first_problem(cases, run(ctx, cases), values_problem("attention_mask"))), p)


def check_labels_are_ids_with_minus_100_at_padding(ctx):
    """Proves labels equal input_ids where the mask is 1 and -100 where it is 0, even for real tokens equal to pad_id."""
    cases = [EDGE_CASES[4]] + random_cases(ctx.rng("labels"))
    expect(not (p := first_problem(cases, run(ctx, cases), values_problem("labels"))), p)


def check_edge_cases_and_integer_dtypes(ctx):
    """Proves empty sequences, an all-empty batch, a batch of one and int32/int16/int8/uint8 inputs (one dtype per batch)
    all give the documented int64 tables."""
    rng = ctx.rng("edge_cases")
    dtyped = [
        {"seqs": [rng.integers(0, 128 if dtype == "int8" else 255, size=n).tolist() for n in (3, 0, 2)], "dtype": dtype, "pad_id": 0}
        for dtype in ("int32", "int16", "int8", "uint8")
    ]
    cases = EDGE_CASES + dtyped
    expect(not (p := first_problem(cases, run(ctx, cases), all_values_problem)), p)


def same_length_cases(rng):
    """Batches where no row needs padding (every sequence of one length), in every integer dtype, smallest first."""
    cases = [{"seqs": [[], []], "dtype": "uint8"}]
    for dtype in ("int32", "uint8", "int16", "int8", "int64"):
        length, rows = int(rng.integers(1, 6)), int(rng.integers(1, 4))
        cases.append({"seqs": [rng.integers(0, 100, size=length).tolist() for _ in range(rows)], "dtype": dtype})
    return cases


def dtype_problem(case, got):
    """Whether the three tables are int64 tensors; nothing else is judged."""
    if got["type"] != "dict":
        return f"  expected a dict, got {got['type']}"
    for key in ("input_ids", "attention_mask", "labels"):
        entry = got["keys"].get(key)
        if entry is None or "dtype" not in entry:
            return f"  expected {key} to be a tensor, got {entry['type'] if entry else 'no such key'}"
        if entry["dtype"] != "int64":
            return (f"  expected {key} to be int64 (torch.long), got {entry['dtype']}: every batch comes out int64, also one "
                    "where no row needs padding (torch.stack keeps the input's dtype; widen with .long())")
    return None


def check_int64_also_when_no_row_needs_padding(ctx):
    """Proves the three tables are int64 whatever the input dtype, also for a batch whose sequences all have one length
    (nothing to pad), where stacking the inputs would keep their dtype.

    Judges the dtypes only: the values of such batches are
    check_edge_cases_and_integer_dtypes's promise.
    """
    cases = same_length_cases(ctx.rng("no_padding"))
    expect(not (p := first_problem(cases, run(ctx, cases), dtype_problem)), p)


def pad_id_cases(rng):
    """Ragged batches whose pad_id the input dtype cannot hold (the docstring's examples first)."""
    pads = [("uint8", 300), ("uint8", -1), ("int8", 200), ("int8", -129), ("int16", 40000), ("int32", 2**40)]
    return [{"seqs": [rng.integers(0, 100, size=n).tolist() for n in (3, 1, 0)], "dtype": dtype, "pad_id": pad}
            for dtype, pad in pads]


def input_ids_values_problem(case, got):
    """Whether input_ids holds the documented values, compared as ints whatever its dtype."""
    entry = got["keys"].get("input_ids", {}) if got["type"] == "dict" else {}
    if "values" not in entry:
        return f"  expected a dict whose input_ids is a tensor, got {got['type']}"
    want, have = expected(case)["input_ids"], entry["values"]
    if want != have:
        return (f"  expected input_ids {show(want)}\n  got      input_ids {show(have)}\n  pad_id={case['pad_id']} does not fit "
                f"{case['dtype']}, but input_ids is int64: write pad_id into an int64 table, not into the input's dtype")
    return None


def check_pad_id_outside_the_input_dtype(ctx):
    """Proves pad_id is written into input_ids as given also when the input dtype cannot hold it (300 or -1 with uint8
    sequences, 200 with int8, ...).

    Judges input_ids's values only, as ints: their dtype is
    check_returns_dict_of_int64_b_by_t's promise.
    """
    cases = pad_id_cases(ctx.rng("pad_id_range"))
    problem = first_problem(cases, run(ctx, cases), input_ids_values_problem)
    if problem and "\n" not in problem:  # the call raised: say what the docstring allows
        problem += ("\n  pad_id need not fit the input's dtype: input_ids is int64, so build the padded table in int64 "
                    "(torch.full(..., pad_id, dtype=torch.long)) and copy the rows in")
    expect(not problem, problem)


def check_inputs_are_not_modified(ctx):
    """Proves pad_collate leaves its input tensors unchanged and returns tensors that share no memory with them.

    The tensors are compared as objects: reordering the list itself is
    allowed (the rows must still follow the order as passed, which the value
    checks judge).
    """
    cases = random_cases(ctx.rng("inputs"), 10) + [{"seqs": [[1, 2, 3], [4, 5, 6]]}]

    def judge(case, got):
        problem = structure_problem(case, got)  # garbage out earns nothing here either
        if problem:
            return problem
        if not got.get("inputs_unchanged", True):
            return "  the input tensors were modified; pad_collate must not write into them"
        if got.get("shares_memory"):
            return "  an output tensor shares memory with an input tensor; build new tensors (e.g. torch.full + copy)"
        return None

    expect(not (p := first_problem(cases, run(ctx, cases), judge)), p)


def check_same_batches_in_real_workers(ctx):
    """Proves pad_collate works as collate_fn in real DataLoader workers under fork, forkserver and spawn (it pickles)
    and gives the documented batches.

    fork and forkserver pools have 2 workers; spawn, which proves that the
    function pickles into a fresh interpreter, has 1 (see POOL_WORKERS).
    """
    rng = ctx.rng("workers")
    seqs = [rng.integers(1, 100, size=int(n)).tolist() for n in rng.integers(0, 9, size=12)]
    batch_size = 3
    pools = {method: POOL_WORKERS[method] for method in START_METHODS}
    runs = ctx.probe("collate:in_workers", timeout=WORKER_TIMEOUT_S, seqs=seqs, batch_size=batch_size, pools=pools)
    want = [expected({"seqs": seqs[i : i + batch_size]}) for i in range(0, len(seqs), batch_size)]
    for method, batches in runs.items():
        expect(len(batches) == len(want), f"with {method} workers: expected {len(want)} batches, got {len(batches)}")
        expect(len({b["pid"] for b in batches}) == pools[method],
               f"with {method} workers: batches should come from {pools[method]} worker process(es)")
        for index, (got, exp) in enumerate(zip(batches, want)):
            expect(got["batch"] == exp, f"with {method} workers, batch {index} of {show(seqs)} (batch_size={batch_size}):\n"
                   f"  expected {show(exp)}\n  got      {show(got['batch'])}")


@ON_GPU
def check_pin_memory_on_gpu(ctx):
    """Proves batches from pad_collate come out of a pin_memory=True loader pinned, and a non_blocking copy to the GPU equals them."""
    seqs = [[1, 2, 3], [4], [5, 6], []]
    report = ctx.probe("collate:pin_memory", timeout=WORKER_TIMEOUT_S, seqs=seqs, batch_size=2)
    expect(report["cuda"], "CUDA is not available in the sandbox, so pinning could not be checked")
    expect(all(t == "dict" for t in report["batch_types"]), f"expected dict batches, got {report['batch_types']}")
    expect(all(all(p) for p in report["pinned"]), f"not every tensor of the batch was pinned: {report['pinned']}")
    expect(report.get("gpu_equal"), "a non_blocking copy to the GPU differs from the CPU batch")


@WITHOUT_GPU
def check_pin_memory_without_accelerator(ctx):
    """Proves that without an accelerator pin_memory=True is ignored with PyTorch's warning and the batches stay correct and unpinned."""
    seqs = [[1, 2, 3], [4], [5, 6], []]
    report = ctx.probe("collate:pin_memory", seqs=seqs, batch_size=2)
    want = [expected({"seqs": seqs[:2]}), expected({"seqs": seqs[2:]})]
    expect(report["values"] == want, f"with pin_memory=True: expected {show(want)}, got {show(report['values'])}")
    expect(not any(any(p) for p in report["pinned"]), "tensors came back pinned although there is no accelerator")
    expect(any("accelerator" in w for w in report["warnings"]), "PyTorch's 'no accelerator is found' warning was not raised")
