"""Checks of exercise 3, seed_worker: every promise of its docstring."""

from __future__ import annotations

import random

import numpy as np

from grader.engine.checks.support import FORKING_METHODS, WORKER_TIMEOUT_S, expect


def first_draws(seed):
    """What each RNG yields first once seeded as the docstring says."""
    return {
        "numpy": float(np.random.RandomState(seed).random_sample()),
        "random": random.Random(seed).random(),
        "rng": float(np.random.default_rng(seed).random()),
    }


def firsts_by_worker(rows):
    """{torch initial seed: first row that worker produced} (batches of 2 come from one worker each)."""
    first = {}
    for row in rows:
        first.setdefault(row["initial_seed"], row)
    return first


def check_seeds_numpy_and_random_outside_workers(ctx):
    """Proves that outside a worker seed_worker seeds NumPy's global RNG and random with torch.initial_seed() % 2**32 and returns None."""
    rng = ctx.rng("outside")
    seeds = [0, 1, 2**31 + 7, 2**32 + 5, *[int(s) for s in rng.integers(2, 2**62, size=3)]]  # bit 31 set: % 2**31 is wrong
    for got in ctx.probe("seeding:outside_worker", seeds=seeds):
        seed = got["seed"] % 2**32
        want = first_draws(seed)
        call = f"torch.manual_seed({got['seed']}); seed_worker(0)"
        expect(got["returned"] == "None", f"{call} returned {got['returned']}; it should return None")
        expect(got["numpy"] == want["numpy"], f"after {call}, np.random.random() gave {got['numpy']}, expected {want['numpy']} "
               f"(np.random.seed(torch.initial_seed() % 2**32))")
        expect(got["random"] == want["random"], f"after {call}, random.random() gave {got['random']}, expected {want['random']} "
               f"(random.seed(torch.initial_seed() % 2**32))")


def check_worker_rngs_seeded_in_real_workers(ctx):
    """Proves that in real workers (fork, forkserver) seed_worker seeds NumPy, random and the dataset copy's rng from torch.initial_seed() % 2**32.

    A forkserver worker gets the dataset (and its rng) pickled and starts
    from the server's RNG state, not the loader's, as a spawn worker does;
    spawn itself would prove nothing more here (see support.POOL_WORKERS).
    """
    loader_seed = int(ctx.rng("in_workers").integers(0, 2**31))
    for method in FORKING_METHODS:
        (rows,) = ctx.probe("seeding:in_workers", timeout=WORKER_TIMEOUT_S, start_method=method, loader_seed=loader_seed,
                            case=f"in 2 {method} workers with generator seed {loader_seed}")
        firsts = firsts_by_worker(rows)
        expect(len(firsts) == 2, f"with {method} workers: expected items from 2 workers with different torch seeds, got {len(firsts)}")
        for initial_seed, row in firsts.items():
            want = first_draws(initial_seed % 2**32)
            where = f"in a {method} worker with torch.initial_seed() = {initial_seed}"
            expect(row["numpy"] == want["numpy"], f"{where}, the first np.random.random() was {row['numpy']}, expected {want['numpy']}")
            expect(row["random"] == want["random"], f"{where}, the first random.random() was {row['random']}, expected {want['random']}")
            expect(row["rng_type"] == "Generator", f"{where}, dataset.rng is a {row['rng_type']}, expected numpy.random.Generator")
            expect(row["rng"] == want["rng"], f"{where}, the first dataset.rng.random() was {row['rng']}, expected {want['rng']} "
                   "(dataset.rng = np.random.default_rng(seed) on get_worker_info().dataset)")


def check_rng_none_is_replaced_too(ctx):
    """Proves that in real fork workers seed_worker replaces a dataset's rng attribute whose value is None, as any
    other value: it becomes np.random.default_rng(torch.initial_seed() % 2**32).

    Judges the dataset's rng only: NumPy's and random's seeding is
    check_worker_rngs_seeded_in_real_workers's promise.
    """
    loader_seed = int(ctx.rng("rng_none").integers(0, 2**31))
    (rows,) = ctx.probe("seeding:in_workers", timeout=WORKER_TIMEOUT_S, start_method="fork", loader_seed=loader_seed, rng_none=True,
                        case=f"in 2 fork workers over a dataset whose rng is None, generator seed {loader_seed}")
    expect(rows, "the loader yielded nothing")
    for initial_seed, row in firsts_by_worker(rows).items():
        want = first_draws(initial_seed % 2**32)["rng"]
        where = f"in a fork worker with torch.initial_seed() = {initial_seed}, over a dataset created with rng = None"
        expect(row["rng_type"] == "Generator", f"{where}, dataset.rng is still {row['rng_type']} after seed_worker: the dataset "
               "has the attribute, whatever its value, so replace it (hasattr, not a test for None)")
        expect(row["rng"] == want, f"{where}, the first dataset.rng.random() was {row['rng']}, expected {want} "
               "(np.random.default_rng(seed))")


def check_reruns_repeat_and_epochs_differ(ctx):
    """Proves that with seed_worker and a seeded loader generator reruns repeat exactly, the two workers draw
    different streams, and each epoch draws new ones.

    Runs with fork workers; check_worker_rngs_seeded_in_real_workers covers
    the seeding itself under forkserver.
    """
    loader_seed = int(ctx.rng("reruns").integers(0, 2**31))
    for method in ("fork",):
        first, second, rerun = ctx.probe("seeding:in_workers", timeout=WORKER_TIMEOUT_S, start_method=method,
                                         loader_seed=loader_seed, epochs=2, reruns=1)
        strip = lambda rows: [(r["index"], r["numpy"], r["random"], r["rng"]) for r in rows]  # noqa: E731
        expect(strip(first) == strip(rerun), f"with {method} workers, two loaders with generator seed {loader_seed} gave different items")
        expect(strip(first) != strip(second), f"with {method} workers, epoch 2 repeated epoch 1's random draws")
        firsts = list(firsts_by_worker(first).values())
        expect(len(firsts) == 2 and firsts[0]["rng"] != firsts[1]["rng"], f"with {method} workers, both workers drew the same dataset.rng stream")


def check_dataset_without_rng_is_left_alone(ctx):
    """Proves seed_worker works on a dataset without an rng attribute and does not add one."""
    (rows,) = ctx.probe("seeding:in_workers", timeout=WORKER_TIMEOUT_S, start_method="fork", loader_seed=7, with_rng=False)
    expect(rows, "the loader yielded nothing")
    expect(not any(r["has_rng"] for r in rows), "seed_worker added an rng attribute to a dataset that had none")
