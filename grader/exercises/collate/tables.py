"""The cases and judges of the collate checks: batches in words, the documented tables, one table's values as ints.

Shared by the checks of grader/exercises/collate/check_collate.py, each of which
judges one promise with them.
"""

from __future__ import annotations

import json

from grader.engine.checking import show
from grader.engine.defaults import default

#: pad_collate's default pad_id, as its signature in solutions/ documents it.
DEFAULT_PAD_ID = default("collate", "pad_collate", "pad_id")
KEYS = ("input_ids", "attention_mask", "labels")
NARROW_DTYPES = ("int32", "int16", "int8", "uint8")


def random_cases(rng, count=30, shortest=1):
    """Random ragged int64 batches, smallest first, with a small vocabulary so real tokens often equal pad_id.

    Sequences are at least ``shortest`` long: empty ones are
    check_empty_sequences_keep_their_row's inputs.
    """
    cases = []
    for _ in range(count):
        lengths = rng.integers(shortest, 10, size=int(rng.integers(1, 6)))
        case = {"seqs": [rng.integers(0, 5, size=int(n)).tolist() for n in lengths]}
        if rng.random() < 0.7:
            case["pad_id"] = int(rng.integers(0, 5))
        cases.append(case)
    return sorted(cases, key=lambda c: (sum(map(len, c["seqs"])), len(c["seqs"])))


def expected(case):
    """The three (B, T) tables the docstring promises, as nested lists."""
    seqs, pad = case["seqs"], case.get("pad_id", DEFAULT_PAD_ID)
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


def first_problem(cases, results, judge):
    """Feedback for the first (smallest) case where ``judge`` finds a problem, or None."""
    for case, got in zip(cases, results):
        if "error" in got:
            return f"{call_text(case)} raised {got['error']}"
        problem = judge(case, got)
        if problem:
            return f"{call_text(case)}:\n{problem}"
    return None


def as_ints(values):
    """Nested values with bools and integral floats as ints: a table's values whatever its dtype."""
    if isinstance(values, list):
        return [as_ints(v) for v in values]
    if isinstance(values, bool) or (isinstance(values, float) and values.is_integer()):
        return int(values)
    return values


def table(got, key):
    """The values of the returned ``got[key]`` as ints, or None when no tensor came back under that key."""
    entry = got["keys"].get(key, {}) if got["type"] == "dict" else {}
    return as_ints(entry["values"]) if "values" in entry else None


def no_table(got, key):
    """Why ``table(got, key)`` is None, in words."""
    if got["type"] != "dict":
        return f"  expected a dict with the key {key!r}, got {got['type']}"
    if key not in got["keys"]:
        return f"  expected a dict with the key {key!r}, got the keys {sorted(got['keys'])}"
    return f"  expected {key} to be a tensor, got {got['keys'][key]['type']}"


def tables_missing(got):
    """Why none of the three tables came back as a tensor, in words, or None when one did."""
    if got["type"] != "dict":
        return f"  expected a dict of the tables {', '.join(KEYS)}, got {got['type']}"
    if not any(table(got, key) is not None for key in KEYS):
        found = {key: entry["type"] for key, entry in got["keys"].items()}
        return f"  expected a dict of the tables {', '.join(KEYS)} as tensors, got {show(found)}"
    return None


def table_problem(key):
    """A judge of one table's documented values (as ints), blind to the other tables, extra keys and dtypes."""
    def judge(case, got):
        have = table(got, key)
        if have is None:
            return no_table(got, key)
        want = expected(case)[key]
        return None if have == want else f"  expected {key} {show(want)}\n  got      {key} {show(have)}"

    return judge


def with_twins(cases):
    """Each case followed by its int64 twin (the same sequences and pad_id as int64 tensors)."""
    return [c for case in cases for c in (case, {**case, "dtype": "int64"})]


def twin_problems(cases, results, judge):
    """Feedback for the first case whose result ``judge(case, got, twin_got)`` finds unlike its int64 twin's, or None.

    The twin is the reference: when it raises, the sameness cannot be
    judged, and the check fails with what the twin raised.
    """
    for case, got, twin, twin_got in zip(cases[::2], results[::2], cases[1::2], results[1::2]):
        if "error" in twin_got:
            return f"{call_text(twin)} raised {twin_got['error']}, so the same batch in {case['dtype']} had nothing to be compared with"
        if "error" in got:
            return f"{call_text(case)} raised {got['error']}, although {call_text(twin)} works"
        if tables_missing(twin_got):
            return f"{call_text(twin)}:\n{tables_missing(twin_got)}"
        problem = judge(case, got, twin_got)
        if problem:
            return f"{call_text(case)}:\n{problem}"
    return None


def narrow_cases(rng, pad_id=DEFAULT_PAD_ID):
    """Ragged batches of every narrow integer dtype, ids spanning the dtype's range (up to 127 for int8, 255 otherwise)."""
    return [{"seqs": [rng.integers(0, 128 if dtype == "int8" else 256, size=n).tolist() for n in (3, 1, 2)], "dtype": dtype,
             "pad_id": pad_id} for dtype in NARROW_DTYPES]


def same_length_cases(rng):
    """Batches where no row needs padding (every sequence of one length) in every integer dtype, then ragged narrow ones."""
    cases = []
    for dtype in ("int32", "uint8", "int16", "int8", "int64"):
        length, rows = int(rng.integers(1, 6)), int(rng.integers(1, 4))
        cases.append({"seqs": [rng.integers(0, 100, size=length).tolist() for _ in range(rows)], "dtype": dtype})
    return cases + narrow_cases(rng)


def pad_id_cases(rng):
    """Ragged batches whose pad_id the input dtype cannot hold (the docstring's examples first)."""
    pads = [("uint8", 300), ("uint8", -1), ("int8", 200), ("int8", -129), ("int16", 40000), ("int32", 2**40)]
    return [{"seqs": [rng.integers(0, 100, size=n).tolist() for n in (3, 1, 2)], "dtype": dtype, "pad_id": pad}
            for dtype, pad in pads]


def case_key(case):
    """A case as a hashable key: two cases with the same sequences, dtype and pad_id are one."""
    return json.dumps(case, sort_keys=True)


def unique(cases):
    """``cases`` in order, each once."""
    return list({case_key(case): case for case in cases}.values())
