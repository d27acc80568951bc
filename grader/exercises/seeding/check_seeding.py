"""Checks of exercise 3, seed_worker: every promise of its docstring, each check judging one.

The probes send every draw with the draw the same RNG would have given had
seed_worker not touched it, so the checks judge apart *which* RNGs
seed_worker seeds (one check per RNG: its draw is not the untouched one)
and *with which seed* (one check for every RNG it seeded: the seed is
torch.initial_seed() % 2**32). A seed_worker that forgets random then
fails the random check only, and one that adds worker_id to the seed fails
the seed check only. One DataLoader pool per start method serves the checks
of the three RNGs (checking.shared_probe).
"""

from __future__ import annotations

import random

import numpy as np

from grader.engine.checking import WORKER_TIMEOUT_S, ProbeProblem, expect, shared_probe

RNGS = {"numpy": "np.random.random()", "random": "random.random()", "rng": "dataset.rng.random()"}
#: Torch seeds below 2**31 (where % 2**31 and % 2**32 agree), and seeds where only % 2**32 gives the documented seed.
SMALL_SEEDS = [0, 1, 1234]
LARGE_SEEDS = [2**31 + 7, 2**32 + 5]


def first_draws(seed):
    """What each RNG yields first once seeded as the docstring says."""
    return {
        "numpy": float(np.random.RandomState(seed).random_sample()),
        "random": random.Random(seed).random(),
        "rng": float(np.random.default_rng(seed).random()),
    }


def firsts_by_worker(rows):
    """{torch's seed as seed_worker found it: first row that worker produced} (batches of 2 come from one worker each)."""
    first = {}
    for row in rows:
        first.setdefault(row["seed_before"], row)
    return first


#: The loader generator's seed of the worker checks, the same for every grading seed: the workers' torch seeds are
#: then the same 64-bit numbers every time (which RNGs are seeded, and with what, is judged on them; the torch seeds
#: at 2**31 and beyond are the outside checks' boundaries).
LOADER_SEED = 4242


def loader_seed(ctx):
    return LOADER_SEED


def worker_rows(ctx):
    """{start method: the first row of each worker}, from one 2-worker pool per method (fork: the first of 2 epochs and a rerun)."""
    seed, firsts = loader_seed(ctx), {}
    for method in ctx.boundaries(two_fork_workers="fork", two_forkserver_workers="forkserver"):
        rows = epochs(ctx, method)[0]
        firsts[method] = firsts_by_worker(rows)
        expect(len(firsts[method]) == 2, f"with {method} workers and generator seed {seed}: expected items from 2 workers with "
               f"different torch seeds, got {len(firsts[method])}")
    return firsts


def epochs(ctx, method):
    """The runs of the shared worker probe of ``method``: fork gives epochs 1 and 2 and a rerun, forkserver epoch 1."""
    seed = loader_seed(ctx)
    more = {"epochs": 2, "reruns": 1} if method == "fork" else {}
    return shared_probe(ctx, "seeding:in_workers", timeout=WORKER_TIMEOUT_S, start_method=method, loader_seed=seed,
                        case=f"in 2 {method} workers with generator seed {seed}", **more)


def rng_none_runs(ctx):
    """The runs of 2 fork workers over a dataset whose rng is None (check_rng_none_is_replaced_too's boundary)."""
    seed = LOADER_SEED + 1
    (rng_none,) = ctx.boundaries(rng_is_none=True)
    return shared_probe(ctx, "seeding:in_workers", timeout=WORKER_TIMEOUT_S, start_method="fork", loader_seed=seed,
                        rng_none=rng_none, case=f"in 2 fork workers over a dataset whose rng is None, generator seed {seed}")


def class_rng_runs(ctx):
    """The runs of 2 fork workers over a dataset whose class defines rng (check_class_level_rng_is_replaced_too's)."""
    (rng_on_class,) = ctx.boundaries(rng_on_the_class=True)
    return shared_probe(ctx, "seeding:in_workers", timeout=WORKER_TIMEOUT_S, start_method="fork", loader_seed=LOADER_SEED + 2,
                        rng_on_class=rng_on_class, case="in 2 fork workers over a dataset whose class defines rng")


def without_rng_runs(ctx):
    """The runs of 2 fork workers over a dataset without an rng attribute (check_dataset_without_rng_is_left_alone's)."""
    (with_rng,) = ctx.boundaries(no_rng_attribute=False)
    return shared_probe(ctx, "seeding:in_workers", timeout=WORKER_TIMEOUT_S, start_method="fork", loader_seed=7,
                        with_rng=with_rng, case="in 2 fork workers over a dataset without an rng attribute")


def one_worker_runs(ctx):
    """The runs of ONE fork worker over a dataset whose rng is a Generator (check_dataset_rng_is_replaced_in_workers's):
    no other worker shares its stream, and seed_worker replaces the rng all the same."""
    (workers,) = ctx.boundaries(one_fork_worker=1)
    return shared_probe(ctx, "seeding:in_workers", timeout=WORKER_TIMEOUT_S, start_method="fork", loader_seed=LOADER_SEED + 3,
                        num_workers=workers, case=f"in {workers} fork worker")


def pooled_firsts(ctx):
    """[(where in words, the first row of one worker)] of every worker of every worker run of the exercise's checks,
    whatever the dataset's rng (a Generator on the instance, None, one its class defines, none at all): each run once
    per grading (shared_probe), so that every judge meets every worker run. A run that failed is its owner's to
    judge, and is left out here (a timeout too: it is charged once). Each run is asked by name, so the contract
    table sees the boundaries of every run a judge meets."""
    return generator_firsts(ctx) + first_rows([
        ("in a fork worker over a dataset created with rng = None", lambda: rng_none_runs(ctx)),
        ("in a fork worker over a dataset whose class defines rng", lambda: class_rng_runs(ctx)),
        ("in a fork worker over a dataset without an rng attribute", lambda: without_rng_runs(ctx))])


def generator_firsts(ctx):
    """Like :func:`pooled_firsts`, for the runs over a dataset whose instance has a Generator as rng."""
    return first_rows([("in a fork worker", lambda: epochs(ctx, "fork")),
                       ("in a forkserver worker", lambda: epochs(ctx, "forkserver")),
                       ("in the only fork worker of its loader", lambda: one_worker_runs(ctx))])


def first_rows(pool):
    """[(words with the worker's torch seed, its first row)] for each (words, runs) of ``pool`` whose first run returned."""
    found = []
    for words, runs in pool:
        try:
            rows = runs()[0]
        except ProbeProblem:
            continue
        found += [(f"{words} with torch.initial_seed() = {seed}", row) for seed, row in firsts_by_worker(rows).items()]
    return found


def worker_rows_if_they_ran(ctx):
    """worker_rows(ctx), or {} when seed_worker broke the workers (the worker checks' promise, judged there)."""
    try:
        return worker_rows(ctx)
    except ProbeProblem as problem:
        if problem.status == "timeout":
            raise
        return {}


def outside_rows(ctx):
    """The rows of seed_worker called outside a worker, for the small seeds then the large ones (one shared probe)."""
    seeds = ctx.boundaries(seed_0=SMALL_SEEDS[0], seed_1=SMALL_SEEDS[1], seed_1234=SMALL_SEEDS[2], bit_31_set=LARGE_SEEDS[0],
                           above_2_32=LARGE_SEEDS[1])
    return shared_probe(ctx, "seeding:outside_worker", seeds=seeds)


def seeded(row, rng):
    """Whether seed_worker changed what ``rng`` draws next (for dataset.rng: replaced it by a numpy Generator)."""
    if rng == "rng" and row.get("rng_type") != "Generator":
        return False
    return row[rng] != row["untouched"][rng]


def check_returns_none(ctx):
    """Proves seed_worker returns None, outside a worker and in real workers.

    Judges what it returns wherever it returns: a call that raises is the other checks' to judge, unless every call raises.
    """
    rows, firsts = outside_rows(ctx), worker_rows_if_they_ran(ctx)
    expect(firsts or any("error" not in row for row in rows), "seed_worker raised every time it was called, outside a worker "
           f"and in workers ({rows[0].get('error')}), so what it returns could not be seen")
    for row in rows:
        expect("error" in row or row["returned"] == "None",
               f"torch.manual_seed({row['seed']}); seed_worker(0) returned {row.get('returned')}; it should return None")
    for where, row in pooled_firsts(ctx) if firsts else ():
        returned = row["untouched"]["returned"]
        expect(returned == "None", f"{where}, seed_worker returned {returned}; it should return None")


def check_seeds_numpy_and_random_outside_workers(ctx):
    """Proves that outside a worker seed_worker runs without a dataset and seeds NumPy's global RNG and random as it does in
    a worker (each RNG it seeds in a worker it seeds here too).

    Judges which RNGs are seeded, on torch seeds below 2**31: the seed's
    value is check_seed_is_torch_initial_seed_modulo_2_32's promise, and
    which RNGs a worker gets the checks of each RNG's. Where seed_worker
    breaks the workers, NumPy and random must both be seeded here.
    """
    rows = outside_rows(ctx)[: len(SMALL_SEEDS)]
    for row in rows:
        expect("error" not in row, f"torch.manual_seed({row['seed']}); seed_worker(0) outside a DataLoader worker raised "
               f"{row.get('error')}: get_worker_info() is None there, so seed NumPy and random and touch no dataset")
    firsts = worker_rows_if_they_ran(ctx)
    for rng in ("numpy", "random"):
        in_workers = not firsts or any(seeded(row, rng) for by_worker in firsts.values() for row in by_worker.values())
        for row in rows:
            expect(seeded(row, rng) or not in_workers, f"after torch.manual_seed({row['seed']}); seed_worker(0) outside a worker, "
                   f"{RNGS[rng]} gave what it would have without the call, although seed_worker seeds it in a worker: "
                   "outside a worker (get_worker_info() is None) seed NumPy and random the same way")


def check_numpy_global_rng_is_seeded_in_workers(ctx):
    """Proves that in real workers (fork, forkserver) seed_worker seeds NumPy's legacy global RNG (numpy.random.seed).

    Judges that it is seeded (its first draw is not the one PyTorch's own
    seeding gives): with which seed is check_seed_is_torch_initial_seed_modulo_2_32's promise.
    """
    judge_seeded(ctx, "numpy", "np.random.seed(seed)")


def check_python_random_is_seeded_in_workers(ctx):
    """Proves that in real workers (fork, forkserver) seed_worker seeds Python's random module (random.seed).

    Judges that it is seeded (its first draw is not the one PyTorch's own
    seeding gives): with which seed is check_seed_is_torch_initial_seed_modulo_2_32's promise.
    """
    judge_seeded(ctx, "random", "random.seed(seed)")


def judge_seeded(ctx, rng, how):
    """``rng`` is seeded in every worker of the exercise's runs: this check's own (worker_rows), then every pooled one,
    whatever the dataset's rng (one with none, or None, still gets NumPy and random seeded)."""
    worker_rows(ctx)
    for where, row in pooled_firsts(ctx):
        expect(seeded(row, rng), f"{where}, the first {RNGS[rng]} was {row[rng]}, what it gives without seed_worker: seed "
               f"it ({how}, seed = torch.initial_seed() % 2**32), whatever the dataset holds")


def check_dataset_rng_is_replaced_in_workers(ctx):
    """Proves that in real workers (fork, forkserver) seed_worker replaces the dataset copy's rng by a new numpy Generator.

    Judges the replacement (a numpy.random.Generator, not the dataset's own
    stream): with which seed is check_seed_is_torch_initial_seed_modulo_2_32's promise.
    """
    worker_rows(ctx)
    one_worker_runs(ctx)  # a run of its own: a failure there is this check's
    for where, row in generator_firsts(ctx):
        expect(row["rng_type"] == "Generator", f"{where}, dataset.rng is a {row['rng_type']}, expected a numpy.random.Generator "
               "(dataset.rng = np.random.default_rng(seed) on get_worker_info().dataset)")
        expect(seeded(row, "rng"), f"{where}, dataset.rng drew {row['rng']}, the dataset's own stream: replace it on the "
               "worker's copy, get_worker_info().dataset (dataset.rng = np.random.default_rng(seed)), also with one worker")
    # Whatever the rng's value: an rng of another type (a RandomState, a random.Random) is replaced too.
    _reference, rows = simulated(ctx, ctx.boundaries(rng_is_a_random_state=SIMULATED_CASES["rng_is_a_random_state"],
                                                     rng_is_a_python_random=SIMULATED_CASES["rng_is_a_python_random"]))
    for row in rows:
        where = f"seed_worker(0) in a worker over {dataset_words(row)}"
        expect("error" not in row, f"{where} raised {row.get('error')}")
        expect(row["rng_type"] == "Generator", f"{where} left dataset.rng a {row['rng_type']}: the attribute is replaced "
               "whatever its value (np.random.default_rng(seed)), or every worker keeps drawing the same stream")


#: The seed of the simulated worker's torch (bit 31 set, above 2**32: the seed is reduced modulo 2**32 first).
SIMULATED_SEED = 2**32 + 2**31 + 11


def simulated(ctx, named):
    """The simulated worker's results (probe seeding:simulated_worker, one run per grading): the instance's Generator
    (every case's reference), and the results of ``named``, cases of SIMULATED_CASES in order."""
    everything = [{"where": "instance", "kind": "generator"}, *SIMULATED_CASES.values()]
    results = shared_probe(ctx, "seeding:simulated_worker", cases=everything, seed=SIMULATED_SEED,
                           case="seed_worker(0) with get_worker_info() naming the dataset, in the probe's own process")
    return results[0], [results[1 + list(SIMULATED_CASES.values()).index(case)] for case in named]


#: The datasets of the simulated worker: an rng of another type on the instance, an rng defined by the class, and last
#: an instance's Generator again (the first case's, seeded a second time in the process with the same torch seed).
SIMULATED_CASES = {"rng_is_a_random_state": {"where": "instance", "kind": "random_state"},
                   "rng_is_a_python_random": {"where": "instance", "kind": "python_random"},
                   "class_rng_is_a_generator": {"where": "class", "kind": "generator"},
                   "the_same_seed_twice_in_one_process": {"where": "instance", "kind": "generator", "again": True}}


def dataset_words(case):
    kind = {"random_state": "np.random.RandomState(0)", "python_random": "random.Random(0)", "none": "None",
            "generator": "np.random.default_rng(12345)"}[case["kind"]]
    return f"a dataset whose {'class defines' if case['where'] == 'class' else 'instance has'} rng = {kind}"


def replaced(row, rng_none=False):
    """Whether seed_worker replaced the dataset's rng: with anything but None (rng_none) or the dataset's own stream."""
    if rng_none:
        return row["rng_type"] != "NoneType"
    return row["rng_type"] != "Generator" or seeded(row, "rng")


def check_rng_none_is_replaced_too(ctx):
    """Proves that in real fork workers seed_worker treats a dataset's rng attribute whose value is None as any other
    value: it is replaced as an rng made in __init__ is, by an object of the same type.

    Compares with the same submission's replacement of a numpy Generator
    (the fork workers of the other checks): what the replacement must be is
    check_dataset_rng_is_replaced_in_workers's promise.
    """
    (rows,) = rng_none_runs(ctx)
    expect(rows, "the loader yielded nothing")
    reference = next(iter(worker_rows(ctx)["fork"].values()))
    for initial_seed, row in firsts_by_worker(rows).items():
        where = f"in a fork worker with torch.initial_seed() = {initial_seed}, over a dataset created with rng = None"
        expect(replaced(row, rng_none=True) or not replaced(reference), f"{where}, dataset.rng is still None after seed_worker, "
               "although an rng made in __init__ is replaced: the dataset has the attribute, whatever its value, so replace it "
               "(hasattr, not a test for None)")
        expect(not replaced(reference) or row["rng_type"] == reference["rng_type"], f"{where}, dataset.rng became a "
               f"{row['rng_type']}, but a {reference['rng_type']} where the dataset's rng was a Generator: replace it the same way")


def check_class_level_rng_is_replaced_too(ctx):
    """Proves that in real fork workers seed_worker replaces an rng the dataset's class defines (hasattr finds it; the
    instance has none of its own) as it replaces one set on the instance.

    Compares with the same submission's replacement of an instance's
    Generator (the fork workers of the other checks): what the replacement
    must be is check_dataset_rng_is_replaced_in_workers's promise.
    """
    (rows,) = class_rng_runs(ctx)
    expect(rows, "the loader yielded nothing")
    reference = next(iter(worker_rows(ctx)["fork"].values()))
    for initial_seed, row in firsts_by_worker(rows).items():
        expect(replaced(row) or not replaced(reference), f"in a fork worker with torch.initial_seed() = {initial_seed}, over a "
               "dataset whose class defines rng (class attribute, none on the instance), dataset.rng still draws the class's "
               "stream after seed_worker: hasattr finds it, so replace it (setting dataset.rng on the instance)")
    # The new rng goes on the instance, and the class keeps its own (other instances still share it): judged where the
    # submission replaces an instance's Generator by default_rng(seed) at all (that is the other checks' promise). A
    # class rng of None is check_rng_none_is_replaced_too's value, so the class case here holds a Generator.
    reference, rows = simulated(ctx, ctx.boundaries(class_rng_is_a_generator=SIMULATED_CASES["class_rng_is_a_generator"]))
    if "error" in reference or not reference["seeded"]:
        return  # an instance's rng not replaced by default_rng(seed): the other checks' promise
    for row in rows:
        where = f"seed_worker(0) in a worker over {dataset_words(row)}"
        expect("error" not in row, f"{where} raised {row.get('error')}, although it works where the instance has the rng")
        expect(row["own"] and row["class_kept"], f"{where}: expected a new rng set on the instance (vars(dataset)['rng']), "
               f"the class's own left as it was; got {'an instance attribute' if row['own'] else 'no instance attribute'}, "
               f"{'the class attribute kept' if row['class_kept'] else 'the class attribute changed'}")


def check_dataset_without_rng_is_left_alone(ctx):
    """Proves seed_worker works in real fork workers on a dataset without an rng attribute and does not add one."""
    (rows,) = without_rng_runs(ctx)
    expect(rows, "the loader yielded nothing")
    expect(not any(r["has_rng"] for r in rows), "seed_worker added an rng attribute to a dataset that had none")


def check_seed_is_torch_initial_seed_modulo_2_32(ctx):
    """Proves every RNG seed_worker seeds gets seed = torch.initial_seed() % 2**32: in real workers (fork, forkserver;
    the loader's 64-bit base seed plus the worker id) and outside a worker (after torch.manual_seed of a seed with bit 31
    set, and of one above 2**32).

    Judges only the RNGs it seeded (which ones is the other checks'
    promise). A seed_worker that raises outside a worker for every seed is
    judged by check_seeds_numpy_and_random_outside_workers; here only in workers.
    """
    worker_rows(ctx)
    for where, row in pooled_firsts(ctx):
        initial_seed = row["seed_before"]  # torch's seed as seed_worker found it (one that re-seeds torch moves it after)
        expect(row["initial_seed"] % 2**32 == initial_seed % 2**32, f"{where}, torch.initial_seed() was {row['initial_seed']} "
               f"after seed_worker: seeding torch too is allowed only with the seed itself (torch.manual_seed(seed), seed = "
               f"{initial_seed % 2**32}), so that torch's stream stays the worker's own")
        want = first_draws(initial_seed % 2**32)
        for rng in [r for r in RNGS if seeded(row, r)]:
            expect(row[rng] == want[rng], f"{where}, the first {RNGS[rng]} was {row[rng]}, expected {want[rng]}: seed it "
                   f"with torch.initial_seed() % 2**32 = {initial_seed % 2**32}, as seed_worker finds it (the initial seed "
                   "already includes the worker id: add nothing, and seed torch, if at all, with that same seed)")
    # The simulated worker's datasets, seeded one after the other in one process with one torch seed: every Generator
    # seed_worker puts in place draws what a fresh default_rng(seed) does, also the second time (none kept and reused).
    _reference, rows = simulated(ctx, ctx.boundaries(**SIMULATED_CASES))
    for earlier, row in enumerate([_reference, *rows]):
        if "error" in row or not row["replaced"] or row["rng_type"] != "Generator":
            continue  # an rng left in place, or not a Generator, is check_dataset_rng_is_replaced_in_workers's to judge
        again = f", after {earlier} earlier seeding(s) in the same process with the same torch seed," if earlier else ""
        expect(row["seeded"], f"seed_worker(0) in a worker over {dataset_words(row)}{again} with torch.initial_seed() = "
               f"{SIMULATED_SEED}: dataset.rng does not draw what np.random.default_rng({SIMULATED_SEED % 2**32}) draws "
               "first: make a new Generator seeded with torch.initial_seed() % 2**32 at every call (one kept from an earlier "
               "call has moved on)")
    rows = outside_rows(ctx)
    if all("error" in row for row in rows[: len(SMALL_SEEDS)]):
        return
    for row in rows[len(SMALL_SEEDS) :]:
        call = f"torch.manual_seed({row['seed']}); seed_worker(0)"
        expect("error" not in row, f"{call} raised {row.get('error')}, although it works for seeds below 2**31: seed with "
               "torch.initial_seed() % 2**32 (NumPy takes seeds below 2**32 only)")
        want = first_draws(row["seed"] % 2**32)
        for rng in [r for r in ("numpy", "random") if seeded(row, r)]:
            expect(row[rng] == want[rng], f"after {call}, {RNGS[rng]} gave {row[rng]}, expected {want[rng]} "
                   f"(seeded with torch.initial_seed() % 2**32 = {row['seed'] % 2**32})")


def check_reruns_repeat_and_epochs_differ(ctx):
    """Proves that with seed_worker and a seeded loader generator reruns repeat exactly, the two workers draw
    different dataset.rng streams, and each epoch draws new ones.

    Runs with fork workers; the draws are compared, not the torch seeds
    (which change every epoch whatever seed_worker does).
    """
    seed = loader_seed(ctx)
    ctx.boundaries(two_epochs_and_a_rerun="fork")
    first, second, rerun = epochs(ctx, "fork")
    draws = lambda rows: [(r["index"], r["numpy"], r["random"], r["rng"]) for r in rows]  # noqa: E731
    expect(draws(first) == draws(rerun), f"with fork workers, two loaders with generator seed {seed} gave different draws")
    expect(draws(first) != draws(second), "with fork workers, epoch 2 repeated epoch 1's random draws")
    firsts = list(firsts_by_worker(first).values())
    expect(len(firsts) == 2 and firsts[0]["rng"] != firsts[1]["rng"], "with fork workers, both workers drew the same dataset.rng stream")
