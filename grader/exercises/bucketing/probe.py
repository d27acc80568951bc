"""Probes for exercise 4, BucketBatchSampler (all in process: no workers needed)."""

from __future__ import annotations

import itertools
import random

import numpy as np
import torch

from grader.inside.probes.common import attempted, construction_outcome, error_text, in_state, load_submission, plain
from grader.shared.states import LATER_STATES


def _global_states():
    return torch.get_rng_state(), np.random.get_state()[1].copy(), random.getstate()


def _unchanged(before):
    torch_state, numpy_state, random_state = before
    now = _global_states()
    return {
        "torch": bool(torch.equal(now[0], torch_state)),
        "numpy": bool((now[1] == numpy_state).all()),
        "random": now[2] == random_state,
    }


def _epoch(sampler):
    return [[type(b).__name__, plain(b), [type(i).__name__ for i in b][:3]] for b in sampler]


def _length(sampler):
    """len(sampler), or 'ExcType: message' of what it raised (a stub's NotImplementedError propagates)."""
    try:
        return len(sampler)
    except NotImplementedError:
        raise
    except Exception as exc:  # the len check judges it; the others do not need it
        return error_text(exc)


def construct(cases):
    """For each kwargs dict: 'ok', or the exception type and message the constructor raised."""
    module = load_submission("bucketing")
    return [construction_outcome(lambda kwargs=kwargs: module.BucketBatchSampler(**kwargs)) for kwargs in cases]


#: How ``lengths`` reaches the sampler: every sequence type its docstring names.
LENGTHS_AS = {"list": list, "tuple": tuple, "numpy": np.array, "tensor": torch.tensor}


def epochs(lengths, batch_size, pool_batches, drop_last, seed, count, replay=True, lengths_as="list"):
    """`count` epochs from one sampler with a seeded generator, then (optionally) a replay from a fresh one.

    ``lengths`` is handed over as a list, tuple, NumPy array or tensor
    (``lengths_as``). Also reports len(sampler) (or what it raised) and whether torch's, NumPy's
    and Python's global RNGs were left untouched.
    """
    module = load_submission("bucketing")
    lengths = LENGTHS_AS[lengths_as](lengths)
    torch.manual_seed(99)
    np.random.seed(99)
    random.seed(99)
    before = _global_states()

    def sampler():
        return module.BucketBatchSampler(
            lengths, batch_size, pool_batches=pool_batches, drop_last=drop_last,
            generator=torch.Generator().manual_seed(seed),
        )

    first = sampler()
    result = {"len": _length(first), "epochs": [_epoch(first) for _ in range(count)]}
    if replay:
        result["replay"] = [_epoch(s) for s in [sampler()] for _ in range(count)]
    result["globals_unchanged"] = _unchanged(before)
    return result


def batch_orders(lengths, batch_size, pool_batches, seed, count):
    """``count`` epochs of one sampler with ``torch.Generator().manual_seed(seed)``, each as its batches' sizes and
    shortest lengths in the order yielded (at most 64 batches an epoch, and how many there were): what a judge of the
    batch order's distribution needs, small however many epochs it draws."""
    module = load_submission("bucketing")
    sampler = module.BucketBatchSampler(list(lengths), batch_size, pool_batches=pool_batches,
                                        generator=torch.Generator().manual_seed(seed))
    out = []
    for _ in range(count):
        sizes, shortest, total = [], [], 0
        for batch in itertools.islice(iter(sampler), 100_000):
            total += 1
            if total <= 64:
                items = [int(i) for i in batch]
                sizes.append(len(items))
                shortest.append(min((lengths[i] for i in items if 0 <= i < len(lengths)), default=None))
        out.append({"batches": total, "sizes": sizes, "shortest": shortest})
    return out


def epoch_states(lengths, batch_size, pool_batches, drop_last, seed, states=LATER_STATES):
    """Epochs of a sampler with ``torch.Generator().manual_seed(seed)``, a new sampler for each: ``fresh``; of the
    later ``states`` (common.LATER_STATES), ``after_a_pass`` and ``after_a_partial_pass`` (the epoch after them),
    ``after_interleaved_passes`` (the two epochs of two iterators taken in turns, a batch of each at a time) and
    ``pickled`` (a pickled copy's epoch); and ``reseeded``: two epochs, then the generator re-seeded with ``seed`` and
    two more (``[first two, two after]``). A state that raises gives ``["error", "<Type>: <message>"]``: the other
    states' data stands."""
    module = load_submission("bucketing")

    def sampler(generator=None):
        return module.BucketBatchSampler(list(lengths), batch_size, pool_batches=pool_batches, drop_last=drop_last,
                                         generator=generator or torch.Generator().manual_seed(seed))

    def interleaved():
        shared = sampler()
        one, two, got = iter(shared), iter(shared), [[], []]
        for _ in range(100_000):  # bounded: an epoch that never ends is another promise's
            a, b = next(one, _END), next(two, _END)
            if a is _END and b is _END:
                break
            got[0] += _epoch([a]) if a is not _END else []
            got[1] += _epoch([b]) if b is not _END else []
        return got

    def reseeded():
        generator = torch.Generator().manual_seed(seed)
        one = sampler(generator)
        first = [_epoch(one), _epoch(one)]
        generator.manual_seed(seed)
        return [first, [_epoch(one), _epoch(one)]]

    later = {state: (interleaved if state == "after_interleaved_passes" else lambda state=state: _epoch(in_state(sampler(), state)))
             for state in LATER_STATES if state in states}
    return {"fresh": attempted(lambda: _epoch(sampler())), **{s: attempted(make) for s, make in later.items()},
            "reseeded": attempted(reseeded)}


_END = object()


def without_generator(lengths, batch_size, torch_seed, pool_batches=50):
    """generator=None: epochs after torch.manual_seed(s), again after re-seeding, again with a draw of torch's global
    RNG between its batches (a training step's dropout, say: ``interleaved``), and after seeding NumPy/random only."""
    module = load_submission("bucketing")
    sampler = module.BucketBatchSampler(lengths, batch_size, pool_batches=pool_batches)
    torch.manual_seed(torch_seed)
    first, second = _epoch(sampler), _epoch(sampler)
    torch.manual_seed(torch_seed)
    replay = _epoch(sampler)
    torch.manual_seed(torch_seed)
    interleaved = []
    for batch in sampler:
        interleaved.append(_epoch([batch])[0])
        torch.rand(1)
    torch.manual_seed(torch_seed)
    np.random.seed(torch_seed + 1)
    random.seed(torch_seed + 1)
    other_globals = _epoch(sampler)
    torch.manual_seed(torch_seed + 1)
    other_torch = _epoch(sampler)
    return {"first": first, "second": second, "replay": replay, "other_globals": other_globals, "other_torch": other_torch,
            "interleaved": interleaved}


def order_codes(lengths, batch_size, pool_batches, seed, count):
    """``count`` epochs of one sampler with ``torch.Generator().manual_seed(seed)`` over lengths that give three batches
    an epoch, as one string: per epoch the index, 0 to 5, of its batches' order among the 6 orders of three (ranked by
    their shortest lengths; ``itertools.permutations`` order), or "x" for an epoch that is not three batches of
    distinct indices. Compact however many epochs a distribution needs."""
    module = load_submission("bucketing")
    sampler = module.BucketBatchSampler(list(lengths), batch_size, pool_batches=pool_batches,
                                        generator=torch.Generator().manual_seed(seed))
    orders = {order: str(k) for k, order in enumerate(itertools.permutations(range(3)))}
    codes = []
    for _ in range(count):
        batches = [[int(i) for i in batch] for batch in itertools.islice(iter(sampler), 4)]
        keys = [min((lengths[i] for i in b if 0 <= i < len(lengths)), default=None) for b in batches]
        if len(batches) != 3 or None in keys or len(set(keys)) != 3:
            codes.append("x")
            continue
        codes.append(orders[tuple(sorted(range(3), key=keys.__getitem__))])
    return "".join(codes)


def distinct_epochs(lengths, batch_size, pool_batches, torch_seed, count):
    """``count`` epochs of one sampler with generator=None after ``torch.manual_seed(torch_seed)``: how many were
    distinct, the first epoch that repeated an earlier one ([earlier, later] numbers, or None), how many distinct
    groupings of the indices into batches there were (the batches as sets, their order aside), and the first epoch
    that is not every index once in batches of ``batch_size`` (its number and batch sizes, or None)."""
    module = load_submission("bucketing")
    sampler = module.BucketBatchSampler(list(lengths), batch_size, pool_batches=pool_batches)
    torch.manual_seed(torch_seed)
    seen, groupings, repeat, malformed = {}, set(), None, None
    for k in range(count):
        epoch = tuple(tuple(int(i) for i in batch) for batch in itertools.islice(iter(sampler), 64))  # 2 in a right answer
        if epoch in seen and repeat is None:
            repeat = [seen[epoch], k]
        seen.setdefault(epoch, k)
        groupings.add(frozenset(frozenset(batch) for batch in epoch))
        if malformed is None and (sorted(i for batch in epoch for i in batch) != list(range(len(lengths)))
                                  or any(len(batch) != batch_size for batch in epoch)):
            malformed = [k, [len(batch) for batch in epoch]]
    return {"epochs": count, "distinct": len(seen), "first_repeat": repeat, "groupings": len(groupings),
            "first_malformed": malformed}


def _bypass_init(cls, lengths, batch_size):
    """An instance with the attributes __init__ documents, for probing the other methods of a stub."""
    obj = cls.__new__(cls)
    obj.lengths, obj.batch_size, obj.pool_batches, obj.drop_last, obj.generator = (
        torch.as_tensor(lengths), batch_size, 50, False, None)
    return obj


def preflight(module):
    """Each entry point called once on a tiny input (see common.entry_points)."""
    sampler = module.BucketBatchSampler
    return {"BucketBatchSampler.__init__": lambda: sampler([1, 2], 1),
            "BucketBatchSampler.__iter__": lambda: list(iter(_bypass_init(sampler, [1, 2], 1))),
            "BucketBatchSampler.__len__": lambda: len(_bypass_init(sampler, [1, 2], 1))}
