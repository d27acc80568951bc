"""Checks of exercise 4, BucketBatchSampler: every promise of its docstring, each check judging one.

A check looks only at what its promise needs: batches are read as lists of
ints whatever their type (that they are lists of Python ints is
check_batches_are_lists_of_python_ints's promise), and len(sampler) is
judged apart from what an epoch yields. The sampler is one algorithm, so a
mistake in how pools are cut or sorted still shows in every check of the
pools it changes.
"""

from __future__ import annotations

import math

from grader import registry
from grader.engine.checking import ProbeProblem, expect, shared_probe, show
from grader.shared.states import STATE_WORDS


def batches_of(epoch):
    return [b for _, b, _ in epoch]


def padded_fraction(lengths, batches):
    slots = sum(len(b) * max(lengths[i] for i in b) for b in batches)
    return 1 - sum(lengths[i] for b in batches for i in b) / slots


def uniform_lengths(rng, n=2000):
    return [int(x) for x in rng.integers(4, 65, size=n)]


def run(ctx, lengths, batch_size, pool_batches=50, drop_last=False, seed=0, count=2, replay=True, lengths_as="list"):
    return shared_probe(ctx, "bucketing:epochs", lengths=lengths, batch_size=batch_size, pool_batches=pool_batches,
                     drop_last=drop_last, seed=seed, count=count, replay=replay, lengths_as=lengths_as)


def call_text(n, batch_size, pool_batches, drop_last):
    return f"BucketBatchSampler(<{n} lengths>, batch_size={batch_size}, pool_batches={pool_batches}, drop_last={drop_last}, generator=...)"


def check_rejects_sizes_below_one(ctx):
    """Proves batch_size < 1 and pool_batches < 1 raise ValueError, and valid sizes do not."""
    cases = ctx.boundaries(
        batch_size_0={"lengths": [3, 1, 2], "batch_size": 0}, batch_size_negative={"lengths": [3, 1, 2], "batch_size": -2},
        pool_batches_0={"lengths": [3, 1, 2], "batch_size": 2, "pool_batches": 0},
        pool_batches_negative={"lengths": [3, 1, 2], "batch_size": 2, "pool_batches": -1},
        both_1={"lengths": [3, 1, 2], "batch_size": 1, "pool_batches": 1})
    outcomes = ctx.probe("bucketing:construct", cases=cases)
    for case, outcome in zip(cases[:4], outcomes[:4]):
        expect(outcome.startswith("ValueError"), f"BucketBatchSampler(**{case}) should raise ValueError, got: {outcome}")
    expect(outcomes[4] == "ok", f"BucketBatchSampler(**{cases[4]}) should work, got: {outcomes[4]}")


def size_cases(ctx, rng):
    """(n, batch_size, pool_batches, drop_last), smallest first: the boundaries, then seeded ones."""
    cases = ctx.boundaries(
        empty=(0, 3, 2, False), empty_drop_last=(0, 3, 2, True), single_drop_last=(1, 3, 2, True),
        short_data=(2, 3, 2, False), short_data_drop_last=(2, 3, 2, True), one_full_batch=(5, 5, 1, False),
        remainder=(10, 3, 2, False), remainder_drop_last=(10, 3, 2, True), pools_of_one_drop_last=(11, 4, 1, True),
        no_short_batch_drop_last=(12, 4, 2, True),  # drop_last with no short batch: nothing to drop
        final_short_pool=(25, 4, 2, False), final_short_pool_drop_last=(27, 4, 2, True),  # pools of 8: 8, 8, 8, 1 (3)
        pool_larger_than_data=(10, 3, 50, False))
    for _ in range(6):
        cases.append((int(rng.integers(1, 300)), int(rng.integers(1, 20)), int(rng.integers(1, 6)), bool(rng.random() < 0.5)))
    return sorted(cases)


def size_runs(ctx):
    """[(n, batch_size, pool_batches, drop_last, lengths, what the probe saw)] over size_cases, one probe run each, shared by three checks."""
    rng = ctx.rng("partition")
    runs = []
    for n, bs, pool, drop in size_cases(ctx, rng):
        lengths = [int(x) for x in rng.integers(1, 50, size=n)]
        runs.append((n, bs, pool, drop, run(ctx, lengths, bs, pool, drop, count=1, replay=False)))
    return runs


def check_len_is_the_number_of_batches(ctx):
    """Proves len(sampler) is ceil(n / batch_size), or n // batch_size with drop_last.

    Judges len() only: how many batches an epoch yields is check_epoch_partitions_the_indices's promise.
    """
    for n, bs, pool, drop, got in size_runs(ctx):
        want = n // bs if drop else math.ceil(n / bs)
        expect(got["len"] == want, f"len({call_text(n, bs, pool, drop)}) returned {got['len']}, expected {want}")


def check_batches_are_lists_of_python_ints(ctx):
    """Proves each batch an epoch yields is a list of Python ints (not a tensor or an array, not NumPy integers)."""
    seen = 0  # batches judged, over every run: how many a run yields is other checks' promise
    for n, bs, pool, drop, got in size_runs(ctx):
        call = call_text(n, bs, pool, drop)
        seen += len(got["epochs"][0])
        for kind, _batch, item_types in got["epochs"][0]:
            expect(kind == "list", f"{call} yielded a {kind}; each batch must be a list of Python ints (.tolist())")
            expect(set(item_types) <= {"int"}, f"{call} yielded batch items of type {item_types}; they must be Python ints")
    expect(seen, "BucketBatchSampler yielded no batch in any run (sizes, batch sizes, pools, drop_last), so the type of "
           "a batch could not be seen")


def check_epoch_partitions_the_indices(ctx):
    """Proves an epoch covers every index once in batches of batch_size, except one short batch, dropped with drop_last.

    Reads the batches as lists of ints whatever their type; len(sampler) is
    check_len_is_the_number_of_batches's promise.
    """
    for n, bs, pool, drop, got in size_runs(ctx):
        (epoch,) = got["epochs"]
        problem = partition_problem(epoch, n, bs, drop)
        expect(not problem, f"{call_text(n, bs, pool, drop)}: {problem}")
    # Every epoch of a sampler in every state partitions the indices: after a whole or a partial epoch, two iterators
    # taken in turns, a pickled copy, a generator re-seeded.
    for n, bs, pool, drop in ctx.boundaries(states_37_by_4_pools_of_2=(37, 4, 2, False), states_37_by_4_drop_last=(37, 4, 2, True)):
        got = states_run(ctx, n, bs, pool, drop)
        for state, epoch in state_epochs(got):
            problem = partition_problem(epoch, n, bs, drop)
            expect(not problem, f"{call_text(n, bs, pool, drop)}, the sampler {state}:\n  {problem}")
    # Every epoch of the long runs the distribution judges read, however many came before it (a run that failed is
    # theirs to judge).
    (one_pool,) = ctx.boundaries(six_orders_of_three_batches=1000)
    try:
        codes, many = order_codes_run(ctx, one_pool), repeats_run(ctx)
    except ProbeProblem:
        return
    if "x" in codes:
        expect(False, f"{call_text(6, 2, one_pool, False)} over lengths [0, 1, 2, 3, 4, 5]: epoch {codes.index('x') + 1} of "
               f"{len(codes):,} was not the 6 indices in 3 batches of 2 (every epoch partitions the indices, however many "
               "came before it)")
    if many["first_malformed"] is not None:
        k, sizes = many["first_malformed"]
        expect(False, f"generator=None, 60 lengths, batch_size 30, pool_batches=1: epoch {k + 1} of {many['epochs']:,} was "
               f"batches of sizes {sizes[:8]}, not every index once in 2 batches of 30 (every epoch partitions the indices, "
               "however many came before it)")
    # drop_last drops the short batch, which is one end of the sorted final pool: with one pool over distinct lengths, the
    # indices not yielded are those of the 5 shortest or the 5 longest lengths, in every epoch (never 5 drawn at random).
    (pool,) = ctx.boundaries(one_pool_drop_last_distinct_lengths=1000)
    lengths = [(11 * i) % 37 for i in range(37)]
    got = run(ctx, lengths, 8, pool, True, seed=7, count=6, replay=False)
    ends = ({i for i, x in enumerate(lengths) if x < 5}, {i for i, x in enumerate(lengths) if x >= 32})
    for epoch in got["epochs"]:
        yielded = {i for b in batches_of(epoch) for i in b if isinstance(i, int)}
        if len(yielded) != 32 or not yielded <= set(range(37)):
            continue  # how many indices come back is judged above
        by_length = sorted(yielded, key=lambda i: lengths[i])
        if sorted(map(sorted, batches_of(epoch))) != sorted(sorted(by_length[k : k + 8]) for k in range(0, 32, 8)):
            continue  # batches that are not slices of the length order: sorting is check_huge_pool_gives_sorted_slices's
        dropped = set(range(37)) - yielded
        expect(dropped in ends, f"{call_text(37, 8, pool, True)} over 37 distinct lengths (one pool): the indices not yielded "
               f"have lengths {sorted(lengths[i] for i in dropped)}; expected the short batch of the sorted pool, the 5 shortest "
               "([0, 1, 2, 3, 4]) or the 5 longest ([32, ..., 36]): sort and slice first, then drop the short batch")


def order_codes_run(ctx, one_pool):
    """The probe's order_codes over 6 distinct lengths in batches of 2, one pool: ORDER_EPOCHS epochs, run once per
    grading (the order's judge and the partition judge read it)."""
    return shared_probe(ctx, "bucketing:order_codes", lengths=[0, 1, 2, 3, 4, 5], batch_size=2, pool_batches=one_pool,
                        seed=11, count=ORDER_EPOCHS)


def repeats_run(ctx):
    """The probe's distinct_epochs: REPEAT_EPOCHS epochs with generator=None over 60 lengths in batches of 30, pools of
    one batch, run once per grading (the repeats' judge and the partition judge read it)."""
    (count,) = ctx.boundaries(epochs_that_must_all_differ=REPEAT_EPOCHS)
    return shared_probe(ctx, "bucketing:distinct_epochs", lengths=list(range(60)), batch_size=30, pool_batches=1,
                        torch_seed=7, count=count, case=f"over {count:,} epochs with generator=None")


#: The lengths of the state runs: small, with ties.
STATE_LENGTHS = [(5 * i) % 11 for i in range(37)]


def states_run(ctx, n, batch_size, pool_batches, drop_last):
    """The probe's epoch_states over the first ``n`` of STATE_LENGTHS (a seed of the run's own), in the states the
    running check's promises speak for (ctx.states), shared by the checks."""
    seed = int(ctx.rng("states").integers(0, 2**31))
    return shared_probe(ctx, "bucketing:epoch_states", lengths=STATE_LENGTHS[:n], batch_size=batch_size,
                        pool_batches=pool_batches, drop_last=drop_last, seed=seed, states=list(ctx.states("bucketing")))


def state_epochs(got):
    """[(the state in words, one epoch)] of an epoch_states run, every epoch of every state that did not raise."""
    found = []
    for state, value in got.items():
        if value and value[0] == "error":
            continue  # a state that raises is judged by the checks of what raised
        if state == "fresh":
            found.append(("fresh", value))
        elif state == "after_interleaved_passes":
            found += [(f"{STATE_WORDS[state]}, iterator {k + 1}", epoch) for k, epoch in enumerate(value)]
        elif state == "reseeded":
            found += [(f"after two epochs and its generator re-seeded, epoch {k + 1}", epoch) for k, epoch in enumerate(value[1])]
        else:
            found.append((STATE_WORDS[state], value))
    return found


def partition_problem(epoch, n, bs, drop):
    """Why ``epoch`` (batches as the probe gives them) is not every index of range(n) once in batches of ``bs`` (the
    short batch dropped with ``drop``), in words, or None."""
    indices = sorted(i for b in batches_of(epoch) for i in b)
    sizes = sorted(len(b) for b in batches_of(epoch))
    short = n % bs
    if drop:
        if not (len(indices) == n - short and len(set(indices)) == len(indices) and set(indices) <= set(range(n))):
            return f"expected {n - short} distinct indices from range({n}), got {show(indices)}"
        if not all(size == bs for size in sizes):
            return f"with drop_last every batch must be full, got sizes {sizes}"
        return None
    if indices != list(range(n)):
        return f"expected every index of range({n}) exactly once, got {show(indices)}"
    want_sizes = sorted([bs] * (n // bs) + ([short] if short else []))
    if sizes != want_sizes:
        return f"expected batch sizes {want_sizes}, got {sizes} (only the final pool may leave a short batch)"
    return None


def check_huge_pool_gives_sorted_slices(ctx):
    """Proves that with a pool larger than the dataset every batch is a contiguous slice of the length-sorted dataset,
    with lengths given as a list, tuple, NumPy array or tensor.

    Either direction counts as sorted: the docstring allows shortest-first
    and longest-first, which pad alike.
    """
    rng = ctx.rng("huge_pool")
    (pool_batches,) = ctx.boundaries(pool_larger_than_data=1000)  # 8000 slots for 97 items, with a short batch
    lengths = [int(x) for x in rng.permutation(97)]  # distinct lengths: the slices are unique
    ascending = [list(range(k, min(k + 8, 97))) for k in range(0, 97, 8)]
    descending = sorted(sorted(range(max(0, k - 7), k + 1)) for k in range(96, -1, -8))
    for lengths_as in ("list", "tuple", "numpy", "tensor"):
        (epoch,) = run(ctx, lengths, 8, pool_batches=pool_batches, count=1, replay=False, lengths_as=lengths_as)["epochs"]
        got = sorted(sorted(lengths[i] for i in b) for b in batches_of(epoch))
        expect(got in (ascending, descending), f"with pool_batches=1000 on 97 distinct lengths (as a {lengths_as}), batch_size 8: "
               f"expected the batches' lengths to be {show(ascending)} in some order, got {show(got)}")
    # Lengths a float32 key cannot tell apart (beyond 2**24 it holds only every second integer): sort the ints.
    (offset,) = ctx.boundaries(distinct_lengths_beyond_2_24=2**24)
    (epoch,) = run(ctx, [offset + x for x in lengths], 8, pool_batches=pool_batches, count=1, replay=False)["epochs"]
    got = sorted(sorted(lengths[i] for i in b if 0 <= i < len(lengths)) for b in batches_of(epoch))
    expect(got in (ascending, descending), f"with pool_batches=1000 on 97 distinct lengths from 2**24 to 2**24 + 96, "
           f"batch_size 8: expected the batches to be slices of the length-sorted dataset, got the lengths minus 2**24 "
           f"{show(got)}: sort the int lengths themselves (a float32 key holds only every second integer beyond 2**24)")
    # Lengths a narrow int type wraps out of order (int16 and uint16 beyond 32767 and 65535, int32 beyond 2**31 - 1).
    (wide,) = ctx.boundaries(lengths_beyond_int16_and_int32=WIDE_LENGTHS)
    (epoch,) = run(ctx, wide, 2, pool_batches=pool_batches, count=1, replay=False)["epochs"]
    order = sorted(range(len(wide)), key=wide.__getitem__)
    slices = [sorted(order[k : k + 2]) for k in range(0, len(wide), 2)]
    reverse = [sorted(order[::-1][k : k + 2]) for k in range(0, len(wide), 2)]
    got = sorted(sorted(b) for b in batches_of(epoch))
    expect(got in (sorted(slices), sorted(reverse)), f"with pool_batches=1000 on lengths {WIDE_LENGTHS}, batch_size 2: "
           f"expected batches of indices {show(slices)} (or, longest first, {show(reverse)}) in some order, got {show(got)}: "
           "sort the lengths as the ints they are (int16, uint16 or int32 copies wrap the long ones around)")


#: Lengths whose order an int16, uint16 or int32 copy changes: each wraps around at its type's end.
WIDE_LENGTHS = [70_000, 5, 40_000, 2**31 + 9, 6, 2**32 + 1, 3, 2**33]


def check_pools_cut_padding_and_one_batch_pools_do_not(ctx):
    """Proves pools of 50 batches cut the padded fraction on lengths uniform in [4, 64] to at most the bound of
    lab.toml's [bounds] (the lab's bound too), while pool_batches=1 pads like random batching (over 35 %)."""
    rng = ctx.rng("padding")
    lengths = uniform_lengths(rng)
    limit = registry.bound("bucketed_padded_fraction")
    pools_of_50, pools_of_1 = ctx.boundaries(pools_of_50=50, pools_of_one_batch=1)
    bucketed = padded_fraction(lengths, batches_of(run(ctx, lengths, 32, pools_of_50, count=1, replay=False)["epochs"][0]))
    expect(bucketed <= limit, f"2,000 lengths uniform in [4, 64], batch_size=32, pool_batches=50: padded fraction {bucketed:.1%}, "
           f"expected at most {limit:.0%} (the lab measures about 2.7 %): sort each pool by length, then slice it")
    single = padded_fraction(lengths, batches_of(run(ctx, lengths, 32, pools_of_1, count=1, replay=False)["epochs"][0]))
    expect(single > 0.35, f"with pool_batches=1 the padded fraction was {single:.1%}; pools of one batch cannot sort across batches, "
           "so it should stay near random batching's 45 %: sort within each pool, not the whole dataset")
    # A final pool smaller than a batch stays a pool of its own: over 5 distinct lengths in batches of 2 with pools of
    # one batch, the short batch is the last permuted index, each of the 5 about as often; one merged into the pool
    # before it would hold the longest (or shortest) of three, 3 times in 5.
    (pools_of_one,) = ctx.boundaries(final_pool_smaller_than_a_batch=1)
    got = run(ctx, [0, 1, 2, 3, 4], 2, pools_of_one, False, seed=11, count=300, replay=False)
    singles = [b[0] for epoch in got["epochs"] for b in batches_of(epoch) if len(b) == 1]
    # A short batch in most epochs (how many there are is check_epoch_partitions_the_indices's), and not always the same
    # index (no fresh permutation at all is check_generator_replays_and_advances's).
    if len(singles) >= 200 and len(set(singles)) > 1:
        top = max(singles.count(0), singles.count(4)) / len(singles)
        expect(top < 0.4, f"{call_text(5, 2, 1, False)} over lengths [0, 1, 2, 3, 4], 300 epochs: the short batch held "
               f"index {0 if singles.count(0) > singles.count(4) else 4} in {top:.0%} of them, where pools of one batch cut in "
               "order give each index about 20 %: the final pool (one index here) is a pool of its own, never merged into "
               "the one before it")


def three_epochs(ctx):
    """(seed, pools, one_pool): three epochs (and their replay) of 300 lengths in batches of 8 (a short batch of 4) with
    pools of 4 batches, and three with one pool over the whole dataset; shared by the checks of the batch order and the generator."""
    rng = ctx.rng("generator")
    lengths = uniform_lengths(rng, 300)
    seed = int(rng.integers(0, 2**31))
    several_pools, one_pool = ctx.boundaries(three_epochs_several_pools=4, three_epochs_one_pool=1000)
    pools = run(ctx, lengths, 8, pool_batches=several_pools, seed=seed, count=3)
    single = run(ctx, lengths, 8, pool_batches=one_pool, seed=seed, count=3, replay=False)
    return seed, pools, single


#: The epochs of the batch order's distribution (check_batch_order_is_shuffled), and the bound of its chi-square
#: statistic over the 6 orders of 3 batches (5 degrees of freedom): a uniform order exceeds 36 once in a million
#: gradings; a shuffle that swaps each place with any place (orders 5/27 and 4/27) gives about 5 + 0.0123 * 6,000 = 79.
ORDER_EPOCHS, ORDER_CHI_SQUARE = 6_000, 36.0
#: The epochs with generator=None that must all differ, each two batches of 30 of 60 distinct lengths in pools of one
#: batch (C(60, 30) * 2 = 2.4e17 epochs): a seed space of 2**24 (a float32 draw) repeats one about
#: REPEAT_EPOCHS**2 / 2**25 (4.3) times, a right answer once in 3e9 gradings.
REPEAT_EPOCHS = 12_000


def moves(epochs):
    """Whether ``epochs`` are not all one epoch: epochs that repeat one another (randomness drawn once) are
    check_generator_replays_and_advances's promise, so a distribution is judged only where the epochs change."""
    return len({str(epoch) for epoch in epochs}) > 1


def check_batch_order_is_shuffled(ctx):
    """Proves the order of all the batches is shuffled: not shortest first or in pool order, and the short batch not
    kept at one place (last, say) epoch after epoch."""
    rng = ctx.rng("order")
    (pool_batches,) = ctx.boundaries(one_pool_of_32_batches=1000)
    lengths = [int(x) for x in rng.permutation(256)]
    (epoch,) = run(ctx, lengths, 8, pool_batches=pool_batches, count=1, replay=False)["epochs"]
    firsts = [min(lengths[i] for i in b) for b in batches_of(epoch)]
    share = sum(a < b for a, b in zip(firsts, firsts[1:])) / max(1, len(firsts) - 1)
    expect(0.2 < share < 0.8, f"the batches came out {'sorted' if share >= 0.8 else 'reverse sorted'} by length "
           f"(their shortest lengths in order: {show(firsts, 200)}); shuffle the order of the batches with the generator")
    # Every order equally likely, judged from a fixed number of draws with bounds every right answer meets under any
    # seed (each bound is more than 4 standard deviations from the mean of a uniform order):
    # - one pool over 6 distinct lengths in batches of 2 gives the same 3 batches every epoch: over ORDER_EPOCHS epochs
    #   their 6 orders come about equally often (the chi-square statistic below ORDER_CHI_SQUARE), also against a
    #   shuffle that is random but not uniform;
    # - over 5 lengths in batches of 2 with pools of one batch the short batch falls at each of its 3 places about 100
    #   times in 300 epochs, and at least 50;
    # - batches of different pools interleave: with pools of 4 batches over 320 distinct lengths, 4 batches that follow
    #   one another come from one pool (their length ranges never overlap) in about 3 of 30 aligned blocks, where pools
    #   yielded one after the other give 30 of 30; pools of another size shuffled together give about 15 (that size is
    #   check_pools_cut_padding_and_one_batch_pools_do_not's promise), so the bound is 24.
    one_pool, pools_of_one, pools_of_4 = ctx.boundaries(six_orders_of_three_batches=1000, short_batch_places=1,
                                                        pools_interleave=4)
    codes = order_codes_run(ctx, one_pool)
    counts = [codes.count(str(k)) for k in range(6)]
    judged = sum(counts)
    if len(set(codes) - {"x"}) > 1 and judged >= ORDER_EPOCHS * 2 // 3:  # epochs that do not move are the generator check's
        mean = judged / 6
        chi_square = sum((c - mean) ** 2 / mean for c in counts)
        expect(chi_square <= ORDER_CHI_SQUARE, f"{call_text(6, 2, one_pool, False)} over lengths [0, 1, 2, 3, 4, 5] (one "
               f"pool: the same 3 batches every epoch), {judged:,} epochs: their 6 orders came {counts} times "
               f"({', '.join(f'{c / judged:.3f}' for c in counts)}), where each should come about {mean:,.0f} times (1/6); "
               f"chi-square {chi_square:.0f}, above {ORDER_CHI_SQUARE:g}, which a uniform order passes but once in a million: "
               "every order of the batches must be equally likely (torch.randperm over all the batches; a loop that swaps "
               "each place with any place is random but not uniform)")
    five = shared_probe(ctx, "bucketing:batch_orders", lengths=[0, 1, 2, 3, 4], batch_size=2, pool_batches=pools_of_one,
                        seed=11, count=300)
    places = [e["sizes"].index(1) for e in five if e["batches"] == 3 and sorted(e["sizes"]) == [1, 2, 2]]
    if moves(five) and len(places) >= 200:
        counts = [places.count(k) for k in range(3)]
        expect(min(counts) >= 50, f"{call_text(5, 2, pools_of_one, False)}, 300 epochs: the short batch came first, second "
               f"and last {counts[0]}, {counts[1]} and {counts[2]} times (about 100 each expected): shuffle the order of all "
               "the batches, the short one among them, so that it falls at every place equally often")
    distinct = [(97 * i) % 320 for i in range(320)]
    blocks = together = 0
    for epoch in run(ctx, distinct, 8, pools_of_4, False, seed=5, count=3, replay=False)["epochs"]:
        spans = [(min(distinct[i] for i in b), max(distinct[i] for i in b)) for b in batches_of(epoch) if b]
        for k in range(0, len(spans) - 3, 4):
            block = sorted(spans[k : k + 4])
            blocks += 1
            together += all(a[1] < b[0] for a, b in zip(block, block[1:]))
    expect(blocks < 20 or together <= 24, f"{call_text(320, 8, pools_of_4, False)} over 320 distinct lengths, 3 epochs: "
           f"{together} of {blocks} blocks of 4 batches in a row were one pool's (their length ranges do not overlap), about "
           "3 expected: the batches of all the pools are shuffled together, not pool after pool")
    _seed, pools, single = three_epochs(ctx)
    # Epochs that repeat one another (randomness drawn once) are the generator check's promise: only epochs whose
    # order changes can show a short batch kept in place.
    moving = [epoch for run in (pools, single) if len({str(e) for e in run["epochs"]}) > 1 for epoch in run["epochs"]]
    places = [next((k for k, b in enumerate(batches_of(epoch)) if len(b) < 8), None) for epoch in moving]
    expect(len(set(places)) != 1 or len(moving) < 2, "the short batch (4 of 300 lengths in batches of 8) came at the same "
           f"place, {places[0] if places else None}, in every epoch while the other batches moved (three epochs with pools of "
           "4 batches, three with one pool): shuffle the order of all the batches, the short one included")


def check_generator_replays_and_advances(ctx):
    """Proves that with a generator the same seed replays the same three epochs, and each epoch differs from the one
    before it in its pools (which indices share a batch) and in its batch order, and that torch's, NumPy's and
    Python's global RNGs are untouched.

    Judged over three epochs of 300 lengths in batches of 8 with pools of 4
    batches, and three with one pool over the whole dataset, where only the
    batch order can change.
    """
    seed, got, single = three_epochs(ctx)
    expect(got["epochs"] == got["replay"], f"two samplers with torch.Generator().manual_seed({seed}) gave different epochs "
           "(len() was called on the first before its epochs, and must draw nothing from the generator)")
    contents = [{frozenset(b) for b in batches_of(epoch)} for epoch in got["epochs"]]
    for e in (1, 2):
        expect(got["epochs"][e - 1] != got["epochs"][e], f"epoch {e + 1} repeated epoch {e}: draw every epoch's randomness "
               "from the generator, whose state advances")
        expect(contents[e - 1] != contents[e], f"epochs {e} and {e + 1} grouped exactly the same indices into batches (only "
               "their order changed): draw a fresh random permutation every epoch, before cutting it into pools")
    orders = {tuple(tuple(sorted(b)) for b in batches_of(epoch)) for epoch in single["epochs"]}
    expect(len(orders) == 3, "with one pool over the whole dataset (pool_batches=1000), three epochs did not give three "
           "batch orders: shuffle the order of all the batches with the generator, every epoch")
    # A generator re-seeded with the same seed replays the same sequence of epochs, also after some epochs.
    n, bs, pool = ctx.boundaries(reseeded_after_two_epochs=(37, 4, 2))[0]
    reseeded = states_run(ctx, n, bs, pool, False)["reseeded"]
    # epochs that do not partition the indices are check_epoch_partitions_the_indices's to judge
    if reseeded and reseeded[0] != "error" and not any(partition_problem(e, n, bs, False) for e in reseeded[0] + reseeded[1]):
        first, again = reseeded
        expect(first == again, f"{call_text(n, bs, pool, False)}: after two epochs the generator was re-seeded with its seed "
               f"(generator.manual_seed(seed)), and the next two epochs differ from the first two:\n  first two {show(first)}\n"
               f"  after     {show(again)}\n  draw from the generator you were given at every epoch: keep no copy of it, nor "
               "of a seed or a permutation drawn once")
    moved = [name for name, same in got["globals_unchanged"].items() if not same]
    expect(not moved, f"with a generator, the global RNG of {', '.join(moved)} was used; all randomness must come from the generator")


def check_without_generator_follows_torch_global_seed(ctx):
    """Proves that with generator=None each epoch draws a fresh seed from torch's global RNG: same torch seed, same
    epoch; NumPy and random play no part."""
    rng = ctx.rng("no_generator")
    lengths = uniform_lengths(rng, 300)
    (batch_size,) = ctx.boundaries(epochs_after_reseeding_each_global_rng=8)
    got = ctx.probe("bucketing:without_generator", lengths=lengths, batch_size=batch_size, torch_seed=int(rng.integers(0, 2**31)))
    expect(got["first"] == got["replay"], "after the same torch.manual_seed, generator=None gave a different epoch")
    expect(got["first"] != got["second"], "generator=None gave the same epoch twice in a row: draw a fresh seed from torch's global RNG each epoch")
    expect(got["other_globals"] == got["first"],
           "reseeding NumPy or random changed the epoch: with generator=None only torch's global RNG may be used")
    expect(got["other_torch"] != got["first"], "a different torch.manual_seed gave the same epoch: the epoch must come from torch's global RNG")
    expect(got["interleaved"] == got["first"], "after the same torch.manual_seed, an epoch during which other code drew from "
           "torch's global RNG between its batches (torch.rand(1) after each, as a training step's dropout would) differs "
           "from one without: draw the epoch's randomness when iter() is called or at its first next(), not batch by batch")
    # Every epoch a fresh seed from torch's global RNG, from all of its values: of 2.4e17 possible epochs, none repeats.
    many = repeats_run(ctx)
    earlier, later = many["first_repeat"] or (None, None)
    # Judged where every epoch partitions the indices (check_epoch_partitions_the_indices judges that, on this run too)
    # and the pools mix, grouping the indices into batches in more than one way: an answer whose batches are the same
    # sets every epoch (one pool over everything, say) has few epochs for a reason the pool judges judge.
    if many["first_malformed"] is None and many["groupings"] > 1:
        expect(many["distinct"] == many["epochs"], f"generator=None over 60 distinct lengths, batch_size 30, pool_batches=1 (2.4e17 "
               f"possible epochs), after torch.manual_seed(7): of {many['epochs']:,} epochs only {many['distinct']:,} differ (epoch "
               f"{later} repeated epoch {earlier}): the seed drawn from torch's global RNG takes too few values (a float from "
               "torch.rand has 2**24); draw an int64 seed (torch.randint, or torch.empty((), dtype=torch.int64).random_()), "
               "or the permutation itself")
    # One pool over distinct lengths: the batches are the same slices every epoch, so only the batch order can change,
    # and it too must come from torch's global RNG (a generator made without a seed repeats one order every epoch).
    (one_pool,) = ctx.boundaries(one_pool_distinct_lengths=1000)
    distinct = [(7 * i) % 64 for i in range(64)]
    got = ctx.probe("bucketing:without_generator", lengths=distinct, batch_size=8, torch_seed=2024, pool_batches=one_pool)
    firsts = [min(distinct[i] for i in b) for b in batches_of(got["first"])]
    if firsts in (sorted(firsts), sorted(firsts, reverse=True)):
        return  # the batches in length order: not shuffled at all, which check_batch_order_is_shuffled judges
    expect(got["first"] != got["second"], f"generator=None, one pool over 64 distinct lengths (pool_batches={one_pool}), batch_size 8: "
           "two epochs in a row gave the same batches in the same order; the batch order must be drawn from torch's global "
           "RNG too (a torch.Generator() made without a seed gives the same order every epoch)")
    expect(got["first"] == got["replay"], "with one pool over distinct lengths, after the same torch.manual_seed, generator=None "
           "gave a different batch order: draw it from torch's global RNG")
