"""Exercise 4: BucketBatchSampler (see exercises/bucketing.py)."""

import math
import random

import numpy as np
import pytest
import torch

pytestmark = pytest.mark.bucketing


def sampler(lab, lengths, batch_size, seed=0, **kwargs):
    return lab.bucketing.BucketBatchSampler(lengths, batch_size, generator=torch.Generator().manual_seed(seed), **kwargs)


@pytest.mark.parametrize("bad", [{"batch_size": 0}, {"batch_size": -3}, {"pool_batches": 0}],
                         ids=["batch_size_0", "batch_size_minus_3", "pool_batches_0"])
def test_rejects_sizes_below_one(lab, bad):
    args = {"batch_size": 4, "pool_batches": 2, **bad}
    with pytest.raises(ValueError):
        lab.bucketing.BucketBatchSampler([3, 1, 2], **args)


@pytest.mark.parametrize("n, batch_size, drop_last, expected", [(10, 3, False, 4), (10, 3, True, 3), (12, 4, True, 3), (2, 5, True, 0)],
                         ids=["10_items_by_3", "10_items_by_3_drop_last", "12_items_by_4_drop_last", "2_items_by_5_drop_last"])
def test_len_counts_the_batches_of_an_epoch(lab, n, batch_size, drop_last, expected):
    s = sampler(lab, list(range(n)), batch_size, drop_last=drop_last)
    call = f"BucketBatchSampler(<{n} lengths>, batch_size={batch_size}, drop_last={drop_last})"
    assert len(s) == expected, f"len({call}) should be {expected}, got {len(s)}"
    batches = len(list(s))
    assert batches == expected, f"an epoch of {call} should yield {expected} batches, got {batches}"


@pytest.mark.parametrize("drop_last", [False, True], ids=["keep_last", "drop_last"])
def test_empty_lengths_yield_no_batch(lab, drop_last):
    s = sampler(lab, [], 4, drop_last=drop_last)
    assert len(s) == 0, f"len() over an empty lengths should be 0, got {len(s)}"
    assert list(s) == [], f"an epoch over an empty lengths should yield no batch, got {list(s)}"


def test_one_epoch_covers_every_index_once_in_lists_of_ints(lab):
    lengths = [5, 3, 9, 1, 4, 4, 8, 2, 7, 6, 3]
    epoch = list(sampler(lab, lengths, 3, pool_batches=2))
    kinds = sorted({type(b).__name__ for b in epoch} | {type(i).__name__ for b in epoch for i in b})
    assert all(isinstance(b, list) and all(type(i) is int for i in b) for b in epoch), \
        f"each batch should be a list of Python ints, got batches and items of type {kinds}"
    indices = sorted(int(i) for b in epoch for i in b)
    assert indices == list(range(len(lengths))), f"an epoch should hold every index of range(11) once, got (sorted) {indices}"
    sizes = sorted(len(b) for b in epoch)
    assert sizes == [2, 3, 3, 3], f"11 items in batches of 3: expected one short batch, the rest full, [2, 3, 3, 3], got {sizes}"


def test_drop_last_drops_only_the_short_batch(lab):
    epoch = list(sampler(lab, list(range(11)), 3, pool_batches=2, drop_last=True))
    sizes = [len(b) for b in epoch]
    assert sizes == [3, 3, 3], f"11 items in batches of 3 with drop_last: expected three full batches, [3, 3, 3], got {sizes}"
    distinct = len({int(i) for b in epoch for i in b})
    assert distinct == 9, f"the three batches should hold 9 distinct indices, got {distinct}"


def test_drop_last_drops_an_end_of_the_sorted_pool(lab):
    """One pool over distinct lengths: the dropped short batch is the 5 shortest or the 5 longest, never 5 at random."""
    lengths = [(11 * i) % 37 for i in range(37)]
    s = sampler(lab, lengths, 8, pool_batches=1000, drop_last=True)
    for _ in range(4):
        dropped = sorted(lengths[i] for i in set(range(37)) - {i for b in s for i in b})
        assert dropped in ([0, 1, 2, 3, 4], [32, 33, 34, 35, 36]), \
            f"37 distinct lengths, batch_size=8, one pool, drop_last=True: dropped lengths {dropped}, expected one end of the sorted pool"


def test_a_final_pool_smaller_than_a_batch_stays_a_pool(lab):
    """Lengths 0..4, batch_size=2, pools of one batch: the short batch is the last permuted index, any of the five."""
    s = sampler(lab, [0, 1, 2, 3, 4], 2, pool_batches=1)
    singles = [b[0] for _ in range(200) for b in s if len(b) == 1]
    assert len(singles) == 200, f"expected one short batch per epoch, got {len(singles)} in 200 epochs"
    top = max(singles.count(0), singles.count(4)) / 200
    assert top < 0.4, (f"the short batch held the shortest or longest index in {top:.0%} of 200 epochs (about 20 % expected): "
                       "keep the final pool (one index here) apart, never merged into the pool before it")


@pytest.mark.parametrize("container", [list, tuple, np.array, torch.tensor], ids=["list", "tuple", "numpy", "tensor"])
def test_a_pool_larger_than_the_data_gives_sorted_slices(lab, container):
    """Sorted shortest first or longest first (either is allowed): 40 lengths in batches of 8 give the same slices."""
    lengths = list(range(40))
    random.Random(1).shuffle(lengths)  # distinct lengths, shuffled positions
    epoch = list(sampler(lab, container(lengths), 8, pool_batches=100))
    slices = sorted(sorted(lengths[i] for i in b) for b in epoch)
    want = [list(range(k, k + 8)) for k in range(0, 40, 8)]
    assert slices == want, (f"with lengths as a {type(container(lengths)).__name__} and one pool over all 40: expected batches "
                            f"of the lengths {want} (in some order), got {slices}")


def test_lengths_beyond_float32_precision_sort_exactly(lab):
    """Lengths are ints: 2**24 + 7, 2**24 + 8 and 2**24 + 9 are three lengths, though float32 holds all three as one."""
    lengths = list(range(40))
    random.Random(2).shuffle(lengths)
    epoch = list(sampler(lab, [2**24 + x for x in lengths], 8, pool_batches=100))
    slices = sorted(sorted(lengths[i] for i in b) for b in epoch)
    want = [list(range(k, k + 8)) for k in range(0, 40, 8)]
    assert slices == want, (f"lengths 2**24 + {sorted(lengths)[:3]}... in one pool: expected batches of the lengths 2**24 + "
                            f"{want} (in some order), got 2**24 + {slices}: sort the int lengths, not a float32 copy of them")


def test_batch_order_is_shuffled(lab):
    lengths = list(range(64))
    firsts = {min(lengths[i] for i in next(iter(sampler(lab, lengths, 4, seed=s, pool_batches=100)))) for s in range(8)}
    assert len(firsts) > 1, "the order of the batches must be shuffled, not shortest first"


def test_the_short_batch_is_shuffled_too(lab):
    """The order of all the batches is shuffled, the short one included: it is not kept last (or first)."""
    lengths = list(range(30))  # batches of 4: seven full ones and a short one of 2
    places = {next(k for k, b in enumerate(sampler(lab, lengths, 4, seed=s, pool_batches=2)) if len(b) < 4) for s in range(8)}
    assert len(places) > 1, f"over 8 seeds the short batch always came at place {places.pop()}: shuffle it with the others"


def global_rng_states():
    numpy_state = np.random.get_state()
    return {"Python's random": random.getstate(), "numpy.random": (numpy_state[1].tobytes(), numpy_state[2:]),
            "torch's global RNG": torch.get_rng_state().tolist()}


def moved_since(before):
    """The global RNGs whose state changed since ``before`` (a global_rng_states()), by name."""
    return [name for name, state in global_rng_states().items() if state != before[name]]


def test_len_draws_nothing_from_the_generator(lab):
    lengths = np.random.default_rng(1).integers(4, 65, size=50).tolist()
    a, b = sampler(lab, lengths, 8, seed=3), sampler(lab, lengths, 8, seed=3)
    before = global_rng_states()
    length = len(a)  # on a alone: b, seeded alike, is the epoch a must still give
    assert not (moved := moved_since(before)), f"len(sampler) drew from {' and '.join(moved)}: it must draw nothing"
    assert length == 7, f"len() of 50 lengths in batches of 8 should be 7, got {length}"
    before = global_rng_states()
    epoch = list(a)
    assert not (moved := moved_since(before)), (f"iterating the sampler drew from {' and '.join(moved)}: draw every random "
                                                "number from the sampler's generator")
    assert epoch == list(b), "len(sampler) changed the next epoch: it must not draw from the generator"


def test_same_seed_replays_and_epochs_differ(lab):
    lengths = np.random.default_rng(0).integers(4, 65, size=200).tolist()
    a = sampler(lab, lengths, 8, seed=11, pool_batches=5)
    b = sampler(lab, lengths, 8, seed=11, pool_batches=5)
    a0, a1 = list(a), list(a)
    assert a0 == list(b) and a1 == list(b), "the same seed replays the same epochs"
    assert a0 != a1, "the generator advances: successive epochs differ"


def test_epochs_regroup_the_indices(lab):
    """Each epoch draws a new permutation before cutting pools, so the batches themselves change, not only their order."""
    lengths = np.random.default_rng(0).integers(4, 65, size=200).tolist()
    s = sampler(lab, lengths, 8, seed=11, pool_batches=5)
    first, second = list(s), list(s)
    assert first != second, ("epochs 1 and 2 gave the same batches in the same order: draw each epoch's permutation from "
                             "the generator in __iter__, so that it advances")
    assert {frozenset(b) for b in first} != {frozenset(b) for b in second}, (
        "epochs 1 and 2 grouped exactly the same indices into batches (only their order changed): permute all the "
        "indices before cutting the pools, every epoch")


def test_global_rngs_untouched_with_a_generator(lab):
    torch.manual_seed(0)
    before = torch.get_rng_state()
    np_before = np.random.get_state()[1].copy()
    random.seed(0)
    random_before = random.getstate()
    list(sampler(lab, list(range(100)), 7))
    assert torch.equal(torch.get_rng_state(), before), "torch's global RNG must not be used"
    assert (np.random.get_state()[1] == np_before).all(), "numpy's global RNG must not be used"
    assert random.getstate() == random_before, "Python's random module must not be used"


def test_lengths_beyond_int16_and_int32_sort_as_ints(lab):
    """An int16, uint16 or int32 copy of the lengths wraps the long ones around: 40000 as int16 is -25536."""
    lengths = [70_000, 5, 40_000, 2**31 + 9, 6, 2**32 + 1, 3, 2**33]
    epoch = list(sampler(lab, lengths, 2, pool_batches=100))
    order = sorted(range(len(lengths)), key=lengths.__getitem__)
    want = [sorted(order[k : k + 2]) for k in range(0, len(lengths), 2)]
    reverse = [sorted(order[::-1][k : k + 2]) for k in range(0, len(lengths), 2)]
    got = sorted(sorted(b) for b in epoch)
    assert got in (sorted(want), sorted(reverse)), (f"lengths {lengths} in one pool, batch_size 2: expected the batches of "
                                                    f"indices {want} (or longest first {reverse}), got {got}: sort the lengths "
                                                    "as the ints they are")


def test_other_draws_during_an_epoch_change_nothing(lab):
    """Without a generator the epoch's randomness is drawn when iter() is called or at the first next(): a training step
    that draws from torch's global RNG between batches (dropout, say) must not change the rest of the epoch."""
    s = lab.bucketing.BucketBatchSampler(list(range(60)), 4)
    torch.manual_seed(5)
    plain = list(s)
    torch.manual_seed(5)
    during = []
    for batch in s:
        during.append(batch)
        torch.rand(1)
    assert during == plain, ("after the same torch.manual_seed, an epoch with torch.rand(1) drawn after every batch differs "
                             "from one without: draw the epoch's randomness at iter() or the first next(), not batch by batch")


def test_without_a_generator_epochs_follow_torchs_global_seed(lab):
    """Drawn from torch's global RNG, directly or through a generator seeded from it: either way, never NumPy's or random's."""
    s = lab.bucketing.BucketBatchSampler(list(range(50)), 5)
    torch.manual_seed(3)
    first = list(s)
    torch.manual_seed(3)
    assert list(s) == first, "after the same torch.manual_seed, the same epoch"
    assert list(s) != first, "the next epoch draws new randomness"
    torch.manual_seed(3)
    np.random.seed(4)
    random.seed(4)
    assert list(s) == first, "reseeding NumPy or random must not change the epoch: only torch's global RNG is used"


def test_without_a_generator_one_pool_gets_a_new_batch_order(lab):
    """One pool over distinct lengths: only the batch order can change, and it comes from torch's global RNG too."""
    s = lab.bucketing.BucketBatchSampler([(7 * i) % 64 for i in range(64)], 8, pool_batches=1000)
    torch.manual_seed(2024)
    first, second = list(s), list(s)
    torch.manual_seed(2024)
    replay = list(s)
    assert first != second, "generator=None: two epochs in a row gave the same batch order (draw it from torch's global RNG)"
    assert first == replay, "generator=None: after the same torch.manual_seed, the batch order differed"


def test_bucketing_cuts_padding(lab):
    lengths = np.random.default_rng(0).integers(4, 65, size=2000).tolist()

    def padded(batches):
        slots = sum(len(b) * max(lengths[i] for i in b) for b in batches)
        return 1 - sum(lengths) / slots

    random_batches = [list(range(i, min(i + 32, 2000))) for i in range(0, 2000, 32)]
    assert padded(random_batches) > 0.35, "batches in index order pad like random batches (about 45 %)"
    bucketed = padded(list(sampler(lab, lengths, 32)))
    assert bucketed < 0.03, (f"2,000 lengths uniform in [4, 64], batches of 32, pools of 50 batches: expected under 3 % padding, "
                             f"got {bucketed:.1%}: sort each pool by length, then slice it")
    batches = len(list(sampler(lab, lengths, 32)))
    assert math.isclose(batches, 63), f"2,000 items in batches of 32 make 63 batches, got {batches}"


def test_one_batch_pools_pad_like_random_batches(lab):
    """pool_batches=1 sorts only within a batch, so it cannot cut padding: sort each pool, not the whole dataset."""
    lengths = np.random.default_rng(0).integers(4, 65, size=2000).tolist()
    epoch = list(sampler(lab, lengths, 32, pool_batches=1))
    padded = 1 - sum(lengths) / sum(len(b) * max(lengths[i] for i in b) for b in epoch)
    assert padded > 0.35, f"with pool_batches=1 the padded fraction was {padded:.1%}; random batching pads about 45 %"
