"""Checks of exercise 1, pad_collate: every promise of its docstring, each check judging one.

A check looks only at what its promise needs and tolerates every other
deviation: a table's values are compared as ints whatever its dtype (the
dtype is check_tables_are_int64_b_by_t's promise), keys other than the one a
check reads are ignored (exactly three keys is
check_returns_exactly_the_three_keys's promise), and a check's inputs leave
out the edge cases that other checks own (empty sequences, narrow dtypes, a
pad_id the dtype cannot hold). Where a promise is a sameness (any integer
dtype gives the same tables; workers give the same batches), the check
compares the submission with itself, so that it proves the sameness and not
the values again.
"""

from __future__ import annotations

from grader.engine.checking import (
    ON_GPU,
    POOL_WORKERS,
    START_METHODS,
    WITHOUT_GPU,
    WORKER_TIMEOUT_S,
    ProbeProblem,
    expect,
    shared_probe,
    show,
)
from grader.exercises.collate.tables import (
    DEFAULT_PAD_ID,
    KEYS,
    call_text,
    case_key,
    expected,
    first_problem,
    narrow_cases,
    no_table,
    pad_id_cases,
    random_cases,
    same_length_cases,
    table,
    table_problem,
    tables_missing,
    twin_problems,
    unique,
    with_twins,
)

# The boundaries: inputs every grading runs whatever the seed (passed to ctx.boundaries by name; the contract
# table lists them per promise).
#: A ragged batch whose real tokens equal pad_id: the mask and the labels must follow the lengths, not the values.
PAD_EQUALS_TOKEN = {"seqs": [[7, 2, 7], [7]], "pad_id": 7}
#: A real token equal to -100, the label of padding: the mask decides, not the value.
TOKEN_MINUS_100 = {"seqs": [[-100, 3, -100], [4]]}
#: pad_id equal to -100, and a pad_id no token uses: input_ids holds it as given.
PAD_ID_MINUS_100 = {"seqs": [[1], [2, 3, 4]], "pad_id": -100}
#: One sequence of one token: B = T = 1.
SINGLE = {"seqs": [[5]]}
#: Token ids a float32 buffer cannot hold exactly (beyond 2**24), and ids beyond float64's 2**53.
IDS_BEYOND_2_24 = {"seqs": [[2**24 + 1, 3], [2**24 + 3]], "pad_id": 0}
IDS_BEYOND_2_53 = {"seqs": [[2**53 + 1, 7], [2**62 + 1]], "pad_id": 1}
#: Empty sequences: alone, first, all of them, and between others with a pad_id of its own.
EMPTY_CASES = {"one_empty": {"seqs": [[]]}, "empty_first": {"seqs": [[], [3, 4]]}, "all_empty": {"seqs": [[], [], []]},
               "empty_between": {"seqs": [[5, 1], [], [2]], "pad_id": 9}}
#: The limits of every narrow integer dtype, ragged (each case is run with its int64 twin).
DTYPE_LIMITS = [{"seqs": [[lo, hi, 0], [hi], [lo, 1]], "dtype": dtype, "pad_id": 0}
                for dtype, (lo, hi) in {"int32": (-(2**31), 2**31 - 1), "int16": (-(2**15), 2**15 - 1),
                                        "int8": (-128, 127), "uint8": (0, 255)}.items()]
#: Sequences longer than the dtype's largest value: a length, a position or a count kept in the input's dtype overflows.
LENGTHS_BEYOND_THE_DTYPE = [{"seqs": [[1] * 300, [2]], "dtype": "uint8", "pad_id": 0},
                            {"seqs": [[3], [4] * 200], "dtype": "int8", "pad_id": 0}]
#: Batches where no row needs padding, in every integer dtype, and one row alone.
NO_PADDING = [{"seqs": [[1, 2], [3, 4]], "dtype": dtype} for dtype in ("int32", "int16", "int8", "uint8", "int64")]
#: The docstring's examples of a pad_id the input dtype cannot hold.
PAD_OUTSIDE = {"uint8_pad_300": ("uint8", 300), "uint8_pad_minus_1": ("uint8", -1), "int8_pad_200": ("int8", 200)}


#: Token ids and pad_ids that a float buffer rounds: pad_id is written as given, as the ids are (2**24 + 1 is the
#: first integer float32 cannot hold, 2**53 + 1 float64's).
PAD_ID_BEYOND_2_24 = {"seqs": [[1, 2], [3]], "pad_id": 2**24 + 1}
PAD_ID_BEYOND_2_53 = {"seqs": [[4], [5, 6, 7]], "pad_id": 2**53 + 1}


# ---------------------------------------------------------------- the cases of each check, and the pool of them all
# Each builder returns one check's own inputs: its boundaries (recorded by ctx.boundaries) and its seeded random ones.


def keys_cases(ctx):
    return ctx.boundaries(single=SINGLE, pad_equals_token=PAD_EQUALS_TOKEN) + random_cases(ctx.rng("keys"), 10)


def int64_cases(ctx):
    return ctx.boundaries(single=SINGLE, ids_beyond_2_24=IDS_BEYOND_2_24, ids_beyond_2_53=IDS_BEYOND_2_53,
                          token_minus_100=TOKEN_MINUS_100) + random_cases(ctx.rng("returns_dict"), 20)


def input_ids_cases(ctx):
    return ctx.boundaries(single=SINGLE, pad_equals_token=PAD_EQUALS_TOKEN, pad_id_minus_100=PAD_ID_MINUS_100,
                          token_minus_100=TOKEN_MINUS_100, ids_beyond_2_24=IDS_BEYOND_2_24, ids_beyond_2_53=IDS_BEYOND_2_53,
                          pad_id_beyond_2_24=PAD_ID_BEYOND_2_24, pad_id_beyond_2_53=PAD_ID_BEYOND_2_53,
                          ) + random_cases(ctx.rng("input_ids"))


def attention_mask_cases(ctx):
    return ctx.boundaries(single=SINGLE, pad_equals_token=PAD_EQUALS_TOKEN, token_minus_100=TOKEN_MINUS_100,
                          pad_id_minus_100=PAD_ID_MINUS_100, ids_beyond_2_24=IDS_BEYOND_2_24,
                          ids_beyond_2_53=IDS_BEYOND_2_53) + random_cases(ctx.rng("attention_mask"))


def mask_empty_cases(ctx):
    return ctx.boundaries(mask_empty_first=EMPTY_CASES["empty_first"], mask_empty_between=EMPTY_CASES["empty_between"])


def labels_cases(ctx):
    return ctx.boundaries(single=SINGLE, pad_equals_token=PAD_EQUALS_TOKEN, token_minus_100=TOKEN_MINUS_100,
                          pad_id_minus_100=PAD_ID_MINUS_100, ids_beyond_2_24=IDS_BEYOND_2_24,
                          ids_beyond_2_53=IDS_BEYOND_2_53) + random_cases(ctx.rng("labels"))


def empty_cases(ctx):
    return ctx.boundaries(**EMPTY_CASES) + [c for c in random_cases(ctx.rng("empty"), 10, shortest=0)
                                            if any(not s for s in c["seqs"])]


def dtype_cases(ctx):
    limits, longer = ctx.boundaries(dtype_limits=DTYPE_LIMITS, lengths_beyond_the_dtype=LENGTHS_BEYOND_THE_DTYPE)
    return with_twins(limits + longer + narrow_cases(ctx.rng("edge_cases")))


def no_padding_cases(ctx):
    no_padding, single = ctx.boundaries(no_padding_every_dtype=NO_PADDING, single=SINGLE)
    return [NO_PADDING_REFERENCE, *no_padding, single] + same_length_cases(ctx.rng("no_padding"))


def pad_outside_cases(ctx):
    examples = [{"seqs": [[1, 2, 3], [4]], "dtype": dtype, "pad_id": pad} for dtype, pad in ctx.boundaries(**PAD_OUTSIDE)]
    return with_twins(examples + pad_id_cases(ctx.rng("pad_id_range")))


def memory_cases(ctx):
    return ctx.boundaries(same_length={"seqs": [[1, 2, 3], [4, 5, 6]]}, single_sequence={"seqs": [[8, 9]]},
                          single=SINGLE) + random_cases(ctx.rng("inputs"), 10)


def pieces(ctx):
    """Every check's own cases, one list per check: the pool is their union. (Each builder is called by name: the
    contract table finds the boundaries a check runs by following its calls.)"""
    return [keys_cases(ctx), int64_cases(ctx), input_ids_cases(ctx), attention_mask_cases(ctx), mask_empty_cases(ctx),
            labels_cases(ctx), empty_cases(ctx), dtype_cases(ctx), no_padding_cases(ctx), pad_outside_cases(ctx),
            memory_cases(ctx)]


def pool(ctx):
    """The exercise's one pool: every check's cases, each once, with every result that came back, ``[(case, result)]``.

    Run once per grading (a shared probe): every judge meets every case its
    promise speaks for, not only those its own check chose. When that one
    run gives no data (a hang, a crash or an oversized result, on some case
    or only after many calls), the same cases run in pieces, one piece per
    check, and the pool is every piece that came back: a piece that fails
    costs the checks that own it (their own run fails), and every other
    judge still meets every case of the pieces that returned, so an answer
    cannot escape the crossing by failing only when called many times.
    """
    every_piece = pieces(ctx)
    cases = unique([case for piece in every_piece for case in piece])
    try:
        return list(zip(cases, shared_probe(ctx, "collate:run_cases", cases=cases)))
    except ProbeProblem as problem:
        if problem.status == "failed":  # a stub: every check says so
            raise
    returned = {}
    for piece in every_piece:
        try:
            results = shared_probe(ctx, "collate:run_cases", cases=piece)
        except ProbeProblem:
            continue  # the checks that own this piece fail on it (results_of runs it for them)
        for case, got in zip(piece, results):
            returned.setdefault(case_key(case), (case, got))
    return list(returned.values())


def results_of(ctx, cases):
    """The results of ``cases``, read from the pool; where the pool lacks one (its piece gave no data), ``cases`` run as
    one probe, whose ProbeProblem fails the asking check."""
    found = {case_key(case): got for case, got in pool(ctx)}
    if all(case_key(case) in found for case in cases):
        return [found[case_key(case)] for case in cases]
    return shared_probe(ctx, "collate:run_cases", cases=cases)


def judged_everywhere(ctx, own, judge, speaks_for):
    """The first problem ``judge`` finds: on the check's own cases (a call that raises there fails it), then on every
    other case of the pool whose call returned and that ``speaks_for(case)`` (the calls that raise are the owners' to
    judge); None when there is none."""
    problem = first_problem(own, results_of(ctx, own), judge)
    if problem:
        return problem
    mine = {case_key(case) for case in own}
    others = [(case, got) for case, got in pool(ctx)
              if case_key(case) not in mine and "error" not in got and speaks_for(case)]
    return first_problem([c for c, _ in others], [g for _, g in others], judge)


def any_case(case):
    return True


def int64_input(case):
    """An int64 batch (a narrow one's values are check_any_integer_dtype_gives_the_same_tables's, compared with its twin)."""
    return case.get("dtype", "int64") == "int64"


def int64_without_empty(case):
    """An int64 batch without an empty sequence (the shape and the rows of an empty one are check_empty_sequences_keep_their_row's)."""
    return int64_input(case) and all(case["seqs"])


def ragged(case):
    """A batch with something to pad (a batch of one length is check_int64_also_when_no_row_needs_padding's)."""
    return len({len(s) for s in case["seqs"]}) > 1


def check_returns_exactly_the_three_keys(ctx):
    """Proves pad_collate returns a dict with exactly the keys input_ids, attention_mask and labels.

    Judges the keys only, on every call of the exercise's pool that returned:
    what is stored under them is the other checks' promise.
    """
    def judge(case, got):
        if got["type"] != "dict":
            return f"  expected a dict, got {got['type']}"
        if set(got["keys"]) != set(KEYS):
            return f"  expected exactly the keys {sorted(KEYS)}, got {sorted(got['keys'])}"
        return None

    expect(not (p := judged_everywhere(ctx, keys_cases(ctx), judge, any_case)), p)


def check_tables_are_int64_b_by_t(ctx):
    """Proves input_ids, attention_mask and labels are int64 (torch.long) tensors of shape (B, T), T the longest length.

    Judges the three tables' types, dtypes and shapes only: the dtype on
    every batch of the pool with something to pad, whatever its dtype (all
    empty sequences included), the shape where no sequence is empty (an
    empty one's row is check_empty_sequences_keep_their_row's); a missing or
    extra key is check_returns_exactly_the_three_keys's promise.
    """
    def judge(case, got):
        if tables_missing(got):
            return tables_missing(got)
        want_shape = [len(case["seqs"]), max(len(s) for s in case["seqs"])]
        for key in [key for key in KEYS if key in got["keys"]]:
            entry = got["keys"][key]
            if "dtype" not in entry:
                return f"  expected {key} to be a tensor, got {entry['type']}"
            if entry["dtype"] != "int64":
                return f"  expected {key} to be int64 (torch.long), got {entry['dtype']}"
            if all(case["seqs"]) and entry["shape"] != want_shape:
                return f"  expected {key} of shape (B, T) = {tuple(want_shape)}, got {tuple(entry['shape'])}"
        return None

    expect(not (p := judged_everywhere(ctx, int64_cases(ctx), judge, lambda case: ragged(case) or not any(case["seqs"]))), p)


def check_input_ids_are_right_padded(ctx):
    """Proves row i of input_ids is batch[i] followed by pad_id (right padding, the given pad_id).

    Judges input_ids's values only, as ints whatever its dtype, on every
    int64 batch of the pool without an empty sequence (pad_ids beyond 2**24
    and 2**53 included: written as given).
    """
    values = table_problem("input_ids")

    def judge(case, got):
        problem = values(case, got)
        if problem and abs(case.get("pad_id", DEFAULT_PAD_ID)) > 2**24:
            problem += ("\n  pad_id is an int written as given: through a float (F.pad's value, pad_sequence's padding_value, "
                        "a float buffer) it rounds beyond 2**24 or 2**53; write it into an int64 table (torch.full(..., "
                        "pad_id, dtype=torch.long))")
        return problem

    expect(not (p := judged_everywhere(ctx, input_ids_cases(ctx), judge, int64_without_empty)), p)


def check_attention_mask_marks_real_tokens(ctx):
    """Proves attention_mask is 1 on the first len(batch[i]) positions of row i and 0 after, also where a real token equals pad_id.

    Judges attention_mask's values only, as ints whatever its dtype (a bool
    mask with the right values passes here and fails check_tables_are_int64_b_by_t),
    on every int64 batch of the pool without an empty sequence.
    """
    judge = table_problem("attention_mask")
    expect(not (p := judged_everywhere(ctx, attention_mask_cases(ctx), judge, int64_without_empty)), p)
    # An empty sequence's row is all 0: a row with no real token marks none. A call that raises or a table of another
    # shape is check_empty_sequences_keep_their_row's to judge, so only a mask of the right shape is judged here.
    empty = mask_empty_cases(ctx)
    for case, got in zip(empty, results_of(ctx, empty)):
        have = table(got, "attention_mask") if "error" not in got else None
        want = expected(case)["attention_mask"]
        if have is not None and [len(row) for row in have] == [len(row) for row in want]:
            expect(not (p := judge(case, got)), p and f"{call_text(case)}:\n{p}\n  (an empty sequence has no real token, so "
                   "its row of the mask is all 0)")


def check_labels_are_ids_with_minus_100_at_padding(ctx):
    """Proves labels equal the tokens where the mask is 1 and -100 where it is 0, even for real tokens equal to pad_id.

    Judges labels's values only, as ints, against the documented tables: a
    mistake in input_ids's padding or in the mask alone does not fail it.
    Every int64 batch of the pool without an empty sequence is judged.
    """
    expect(not (p := judged_everywhere(ctx, labels_cases(ctx), table_problem("labels"), int64_without_empty)), p)


def check_empty_sequences_keep_their_row(ctx):
    """Proves a batch may hold empty sequences (length 0): each keeps its row, and T is 0 when every sequence is empty.

    Judges that the call works and that every table that came back has B
    rows of T columns; the tables' values are the value checks' promise.
    """
    def judge(case, got):
        if tables_missing(got):
            return tables_missing(got)
        want = (len(case["seqs"]), max(len(s) for s in case["seqs"]))
        for key in KEYS:
            shape = got["keys"].get(key, {}).get("shape") if got["type"] == "dict" else None
            if shape is not None and tuple(shape) != want:
                return (f"  expected {key} of shape (B, T) = {want}, got {tuple(shape)}: an empty sequence keeps its row "
                        "(all padding), and T is the longest length (0 when every sequence is empty)")
        return None

    expect(not (p := judged_everywhere(ctx, empty_cases(ctx), judge, lambda case: not all(case["seqs"]))), p)


def check_any_integer_dtype_gives_the_same_tables(ctx):
    """Proves a batch of int32, int16, int8 or uint8 sequences (one dtype per batch) gives the same three tables as the
    same sequences in int64.

    Compares the submission with itself, values as ints: what the tables
    hold is the value checks' promise, their dtype check_tables_are_int64_b_by_t's.
    """
    cases = dtype_cases(ctx)

    def judge(case, got, twin):
        for key in KEYS:
            have, want = table(got, key), table(twin, key)
            if want is not None and have != want:
                return (f"  {key} {show(have)}\n  but the same sequences as int64 give {key} {show(want)}: build the tables in "
                        "int64 (torch.long), whatever the input's dtype")
        return None

    expect(not (p := twin_problems(cases, results_of(ctx, cases), judge)), p)


#: The ragged int64 batch whose dtypes the batches without padding are compared with.
NO_PADDING_REFERENCE = {"seqs": [[1, 2, 3], [4]]}


def check_int64_also_when_no_row_needs_padding(ctx):
    """Proves each table has one dtype whatever the input dtype, also for a batch whose sequences all have one length
    (nothing to pad), where stacking the inputs would keep their dtype.

    Compares each table's dtype with the submission's own on a ragged int64
    batch: that this dtype is int64 is check_tables_are_int64_b_by_t's
    promise, and the values are the value checks'. Every batch of the pool
    whose sequences have one length is judged.
    """
    cases = no_padding_cases(ctx)
    results = results_of(ctx, cases)
    if "error" in results[0] or tables_missing(results[0]):
        problem = f"raised {results[0]['error']}" if "error" in results[0] else f"gave no table:\n{tables_missing(results[0])}"
        expect(False, f"{call_text(NO_PADDING_REFERENCE)} {problem}, so the dtypes had nothing to be compared with")
    dtypes = {key: results[0]["keys"].get(key, {}).get("dtype") if results[0]["type"] == "dict" else None for key in KEYS}

    def judge(case, got):
        for key, want in dtypes.items():
            have = got["keys"].get(key, {}).get("dtype") if got["type"] == "dict" else None
            if want is not None and have != want:
                return (f"  {key} is {have}, but {call_text(NO_PADDING_REFERENCE)} gives {want}: every batch comes out int64, "
                        "also one where no row needs padding (torch.stack keeps the input's dtype; widen with .long())")
        return None

    expect(not (p := judged_everywhere(ctx, cases[1:], judge, lambda case: not ragged(case) and all(case["seqs"]))), p)


def check_pad_id_outside_the_input_dtype(ctx):
    """Proves pad_id is written into input_ids as given also when the input dtype cannot hold it (300 or -1 with uint8
    sequences, 200 with int8, ...): input_ids is the one the same sequences give as int64.

    Compares input_ids with the submission's own for the int64 twin, as ints:
    how pad_id is written there is check_input_ids_are_right_padded's promise.
    """
    cases = pad_outside_cases(ctx)

    def judge(case, got, twin):
        have, want = table(got, "input_ids"), table(twin, "input_ids")
        if have is None:
            return no_table(got, "input_ids")
        if want is not None and have != want:
            return (f"  input_ids {show(have)}\n  but the same sequences as int64 give {show(want)}: pad_id={case['pad_id']} "
                    f"does not fit {case['dtype']}, but input_ids is int64: write pad_id into an int64 table, not into the input's dtype")
        return None

    problem = twin_problems(cases, results_of(ctx, cases), judge)
    if problem and "\n" not in problem:  # the call raised: say what the docstring allows
        problem += ("\n  pad_id need not fit the input's dtype: input_ids is int64, so build the padded table in int64 "
                    "(torch.full(..., pad_id, dtype=torch.long)) and copy the rows in")
    expect(not problem, problem)


def check_inputs_are_not_modified(ctx):
    """Proves pad_collate leaves its input tensors unchanged and returns tensors that share no memory with them and do
    not overlap each other (a write into one never reaches another).

    The tensors are compared as objects: reordering the list itself is
    allowed (the rows must still follow the order as passed, which the value
    checks judge). Judges nothing of what came back but its memory (so it
    needs a tensor to come back, in a dict, a tuple or a list), on every
    call of the pool that returned, and on every batch that came out of real
    workers in check_same_batches_in_real_workers's run (a run that failed is
    that check's to judge).
    """
    def judge(case, got):
        if not got.get("tensors_returned"):
            return f"  no tensor came back ({got['type']}), so whether the tables share memory with the inputs could not be seen"
        if not got.get("inputs_unchanged", True):
            return "  the input tensors were modified; pad_collate must not write into them"
        if got.get("shares_memory"):
            return "  an output tensor shares memory with an input tensor; build new tensors (e.g. torch.full + copy)"
        if got.get("tables_share_memory"):
            return ("  writing into one of the returned tensors changed another (one is a view of the other, labels is "
                    "input_ids itself, say); make each its own tensor, so that writing into labels never changes input_ids")
        return None

    expect(not (p := judged_everywhere(ctx, memory_cases(ctx), judge, any_case)), p)
    # The batches that came out of real workers, as the main process holds them (check_same_batches_in_real_workers's run).
    expect(not (p := overlapping_worker_batch(ctx)), p and f"{p}: a worker returns its tables through shared memory, and "
           "two that are one tensor (labels returned as input_ids when nothing is padded, say) stay one; make each its own "
           "tensor, in workers too")


def check_same_batches_in_real_workers(ctx):
    """Proves pad_collate works as collate_fn in real DataLoader workers under fork, forkserver and spawn (it pickles)
    and gives there the batches it gives in the main process, for batches of every integer dtype.

    Compares the workers' batches with the same submission's in-process
    batches (num_workers=0), values and types: what a batch holds is the
    other checks' promise, so a narrow batch that raises in the main process
    must raise alike in the workers (the same exception type), nothing more;
    the int64 batches must come back in the main process, or there is nothing
    to compare (an answer that always raises proves no sameness).
    Each batch has one dtype, another one per batch: the tensors a spawn or
    forkserver worker gets are pickled, dtype and all. fork and forkserver
    pools have 2 workers; spawn, which proves that the function pickles into
    a fresh interpreter, has 1 (see POOL_WORKERS).
    """
    seqs, dtypes, batch_size, pools, got = worker_run(ctx)
    want = [without_overlap(batch) for batch in got["in_process"]]
    raised = [index for index, batch in enumerate(want) if dtypes[index % len(dtypes)] == "int64" and "raised" in batch]
    if raised:
        part = seqs[raised[0] * batch_size:(raised[0] + 1) * batch_size]
        expect(False, f"pad_collate raised {want[raised[0]]['raised']} on an int64 batch in the main process ({show(part)}, "
               f"batch_size={batch_size}), so the workers' batches had nothing to be compared with: this check needs the "
               "int64 batches to come back in the main process")
    for method, batches in got["runs"].items():
        expect(len(batches) == len(want), f"with {method} workers: expected {len(want)} batches, as in the main process, got {len(batches)}")
        expect(len({b["pid"] for b in batches}) == pools[method],
               f"with {method} workers: batches should come from {pools[method]} worker process(es)")
        for index, (batch, exp) in enumerate(zip(batches, want)):
            dtype = dtypes[index % len(dtypes)]
            part = seqs[index * batch_size:(index + 1) * batch_size]
            have = without_overlap(batch["batch"])
            expect(have == exp, f"with {method} workers, batch {index} ({dtype} tensors {show(part)}, batch_size="
                   f"{batch_size}) differs from the main process's:\n  main process {show(exp)}\n  workers      "
                   f"{show(have)}\n  (a worker under spawn or forkserver gets the tensors pickled: their dtype "
                   "too, and nothing of the main process's state)")


def worker_run(ctx):
    """(seqs, dtypes, batch_size, pools, what the probe saw): one run of DataLoaders over pad_collate, in the main process
    and with real workers under every start method, shared by the checks that judge what comes out of workers."""
    # 13 sequences in batches of 3: four full batches, then a short one of one row (nothing to pad). The same for every
    # seed: only the sameness with the main process, and the memory of what arrives, are judged on it.
    (seqs,) = ctx.boundaries(short_final_batch=[[1, 2, 3], [4], [5, 6], [7, 8, 9, 10], [11], [12, 13], [14, 15, 16, 17, 18],
                                                [19], [20, 21, 22], [23, 24], [25], [26, 27, 28, 29], [30]])
    (dtypes,) = ctx.boundaries(one_dtype_per_batch_through_workers=["int64", "int32", "uint8", "int16", "int8"])
    batch_size = 3
    pools = {method: POOL_WORKERS[method] for method in START_METHODS}
    got = shared_probe(ctx, "collate:in_workers", timeout=WORKER_TIMEOUT_S, seqs=seqs, batch_size=batch_size, pools=pools,
                       dtypes=dtypes)
    return seqs, dtypes, batch_size, pools, got


def without_overlap(batch):
    """A batch as the probe reported it, without whether its tensors overlap (check_inputs_are_not_modified's promise)."""
    return {key: value for key, value in batch.items() if key != "overlap"}


def overlapping_worker_batch(ctx):
    """The first batch that arrived from real workers with tensors that overlap (a write into one reaches another), in
    words, or None; None too when the workers' run gave no data (check_same_batches_in_real_workers's to judge)."""
    try:
        seqs, _dtypes, batch_size, _pools, got = worker_run(ctx)
    except ProbeProblem:
        return None
    for method, batches in got["runs"].items():
        for index, batch in enumerate(batches):
            if batch["batch"].get("overlap"):
                return (f"with {method} workers, batch {index} ({show(seqs[index * batch_size:(index + 1) * batch_size])}, "
                        f"batch_size={batch_size}) arrived with tensors that overlap: writing into one changed another")
    return None


#: The sequences of the pin_memory checks: ragged, none empty.
PIN_SEQS = [[1, 2, 3], [4], [5, 6], [7]]


@ON_GPU
def check_pin_memory_on_gpu(ctx):
    """Proves batches from pad_collate come out of a pin_memory=True loader pinned, and a non_blocking copy to the GPU equals them."""
    report = ctx.probe("collate:pin_memory", timeout=WORKER_TIMEOUT_S, seqs=PIN_SEQS, batch_size=2)
    expect(report["cuda"], "CUDA is not available in the sandbox, so pinning could not be checked")
    expect(all(t == "dict" for t in report["batch_types"]), f"expected dict batches, got {report['batch_types']}")
    expect(all(all(p) for p in report["pinned"]), f"not every tensor of the batch was pinned: {report['pinned']}")
    expect(report.get("gpu_equal"), "a non_blocking copy to the GPU differs from the CPU batch")


@WITHOUT_GPU
def check_pin_memory_without_accelerator(ctx):
    """Proves that without an accelerator pin_memory=True is ignored with PyTorch's warning, the batches stay those of a
    plain loader and come back unpinned."""
    report = ctx.probe("collate:pin_memory", seqs=PIN_SEQS, batch_size=2)
    expect(report["values"] == report["unpinned_values"], f"with pin_memory=True the batches are {show(report['values'])}, "
           f"without it {show(report['unpinned_values'])}")
    expect(not any(any(p) for p in report["pinned"]), "tensors came back pinned although there is no accelerator")
    expect(any("accelerator" in w for w in report["warnings"]), "PyTorch's 'no accelerator is found' warning was not raised")
