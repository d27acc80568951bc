"""The lab's four experiments, run on this package's implementations.

    python -m exercises.lab                 # your code
    python -m solutions.lab                 # the reference (instructors)
    python -m exercises.lab --mp-context spawn --seed 1 --json results.json

(a) sharding: a 2,000-integer iterable dataset on 2 workers, first without
    sharding (every worker yields the whole stream: 2,000 duplicates), then
    ``ShardedRange`` (each integer exactly once).
(b) seeding: a 50,000-token uint16 file read through ``TokenWindows`` with a
    NumPy masking augmentation drawn from the dataset's ``rng``, on 2 workers
    with ``worker_init_fn=seed_worker``, run twice with one loader seed
    (identical), plus a check that the workers' masks differ and that a
    second epoch draws new ones.
(c) bucketing: 2,000 sequences with lengths uniform in [4, 64], batch 32,
    random batches versus ``BucketBatchSampler`` (padded fraction about 45 %
    versus under 3 %), padded with ``pad_collate``.
(d) throughput: ``TokenWindows`` samples per second with 0 and 2 workers,
    and per-item reads versus batched ``__getitems__`` reads. Printed, never
    judged: it depends on the machine.

An exercise that is not implemented yet is reported as such and the other
experiments still run. The exit status is 0 when every experiment ran and
showed what the lab text says, 1 otherwise.

Workers start with forkserver, with torch and numpy preloaded, where the
platform has it (Linux, macOS), and with the platform's default elsewhere;
``--mp-context`` overrides this. All classes are defined at module level so
that spawn and forkserver workers can unpickle them.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import multiprocessing
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, IterableDataset, RandomSampler

PACKAGE = __spec__.parent if __spec__ and __spec__.parent else "exercises"
NUM_WORKERS = 2
MASK_ID = 0  # token id written over masked positions in experiment (b)


def exercise(name):
    """Import one exercise module of this package (``collate``, ``tokens``, ...)."""
    return importlib.import_module(f"{PACKAGE}.{name}")


@contextlib.contextmanager
def batches(loader):
    """Iterate a DataLoader and always shut its workers down on the way out.

    Left to the garbage collector (after an exception, say), the shutdown of
    a worker pool can stall for two 5 s join timeouts; shutting down
    explicitly takes milliseconds.
    """
    it = iter(loader)
    try:
        yield it
    finally:
        shutdown = getattr(it, "_shutdown_workers", None)  # absent with num_workers=0
        if shutdown is not None:
            shutdown()


# ---------------------------------------------------------------- datasets
class UnshardedRange(IterableDataset):
    """The naive stream: every worker iterates all of range(n)."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


class MaskedWindows(Dataset):
    """TokenWindows plus a random-masking augmentation drawn from ``self.rng``.

    ``rng`` is made in ``__init__``, so without ``seed_worker`` every worker
    would receive it in the same state and draw the same masks.
    """

    def __init__(self, windows, mask_prob=0.15):
        self.windows = windows
        self.mask_prob = mask_prob
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return len(self.windows)

    def __getitem__(self, i):
        x, y = self.windows[i]
        masked = self.rng.random(len(x)) < self.mask_prob
        return x.masked_fill(torch.from_numpy(masked), MASK_ID), y


class PerItem(Dataset):
    """Hides a dataset's ``__getitems__`` so the loader fetches item by item."""

    def __init__(self, dataset):
        self.dataset = dataset

    def __len__(self):
        return len(self.dataset)

    def __getitem__(self, i):
        return self.dataset[i]


# ------------------------------------------------------------- experiments
def run_sharding(ctx, seed):
    """(a) Count what 2 workers yield for 2,000 integers, unsharded and sharded."""
    n = 2000
    ShardedRange = exercise("sharding").ShardedRange

    def collect(dataset):
        loader = DataLoader(dataset, batch_size=None, num_workers=NUM_WORKERS, multiprocessing_context=ctx)
        with batches(loader) as it:
            return [int(i) for i in it]

    naive = collect(UnshardedRange(n))
    sharded = collect(ShardedRange(n))
    return {
        "items": n,
        "unsharded_yielded": len(naive),
        "unsharded_duplicates": len(naive) - len(set(naive)),
        "sharded_yielded": len(sharded),
        "sharded_duplicates": len(sharded) - len(set(sharded)),
        "sharded_exactly_once": sorted(sharded) == list(range(n)),
    }


def run_seeding(ctx, seed, token_file):
    """(b) Masked windows on 2 workers with seed_worker: reruns, workers and epochs."""
    seed_worker = exercise("seeding").seed_worker
    windows = exercise("tokens").TokenWindows(token_file, block_size=64, stride=64)
    dataset = MaskedWindows(windows)

    def epochs(count):
        """The inputs x of every batch, per epoch, from one loader with a fixed seed."""
        loader = DataLoader(
            dataset,
            batch_size=32,
            shuffle=True,
            num_workers=NUM_WORKERS,
            worker_init_fn=seed_worker,
            generator=torch.Generator().manual_seed(seed),
            multiprocessing_context=ctx,
        )
        runs = []
        for _ in range(count):
            with batches(loader) as it:
                runs.append([x for x, _ in it])
        return runs

    first, second = epochs(2)
    (rerun,) = epochs(1)
    # Workers take batches in turn: batch 0 came from worker 0, batch 1 from worker 1.
    worker0_mask, worker1_mask = first[0] == MASK_ID, first[1] == MASK_ID
    return {
        "windows": len(dataset),
        "rerun_identical": all(torch.equal(a, b) for a, b in zip(first, rerun, strict=True)),
        "workers_differ": not torch.equal(worker0_mask, worker1_mask),
        "epochs_differ": not all(torch.equal(a, b) for a, b in zip(first, second, strict=True)),
        "masked_fraction": round(float(torch.cat(first).eq(MASK_ID).float().mean()), 3),
    }


def padded_fraction(batches):
    """Share of positions that are padding, over a list of attention masks."""
    total = sum(mask.numel() for mask in batches)
    real = sum(int(mask.sum()) for mask in batches)
    return 1 - real / total


def run_bucketing(ctx, seed):
    """(c) Padded fraction of random versus bucketed batches of 2,000 sequences."""
    rng = np.random.default_rng(seed)
    lengths = rng.integers(4, 65, size=2000)  # uniform in [4, 64]
    g = torch.Generator().manual_seed(seed)
    sequences = [torch.randint(1, 50_000, (int(n),), generator=g) for n in lengths]
    pad_collate = exercise("collate").pad_collate
    BucketBatchSampler = exercise("bucketing").BucketBatchSampler

    def masks(batch_sampler):
        loader = DataLoader(sequences, batch_sampler=batch_sampler, collate_fn=pad_collate)
        return [batch["attention_mask"] for batch in loader]

    random_batches = BatchSampler(RandomSampler(sequences, generator=torch.Generator().manual_seed(seed)), 32, False)
    bucketed = BucketBatchSampler(lengths.tolist(), 32, generator=torch.Generator().manual_seed(seed))
    return {
        "sequences": len(sequences),
        "batch_size": 32,
        "random_padded_fraction": round(padded_fraction(masks(random_batches)), 4),
        "bucketed_padded_fraction": round(padded_fraction(masks(bucketed)), 4),
    }


def samples_per_second(loader, samples):
    """Steady-state samples/s: the clock starts after the first batch (worker start-up excluded)."""
    with batches(loader) as it:
        next(it)
        start = time.perf_counter()
        count = 0
        for x, _ in it:
            count += len(x)
            if count >= samples:
                break
        return count / (time.perf_counter() - start)


def run_throughput(ctx, seed, token_file, samples=20_000, repeats=3):
    """(d) TokenWindows samples/s: 0 versus 2 workers, per-item versus batched reads."""
    windows = exercise("tokens").TokenWindows(token_file, block_size=64)
    has_batched = hasattr(windows, "__getitems__")
    setups = {
        "0 workers, per-item": (PerItem(windows), 0),
        "0 workers, batched": (windows, 0) if has_batched else None,
        f"{NUM_WORKERS} workers, per-item": (PerItem(windows), NUM_WORKERS),
        f"{NUM_WORKERS} workers, batched": (windows, NUM_WORKERS) if has_batched else None,
    }
    rates = {}
    for name, setup in setups.items():
        if setup is None:
            rates[name] = None  # TokenWindows has no __getitems__ (optional)
            continue
        dataset, workers = setup
        runs = []
        for _ in range(repeats):
            loader = DataLoader(
                dataset,
                batch_size=64,
                shuffle=True,
                num_workers=workers,
                generator=torch.Generator().manual_seed(seed),
                multiprocessing_context=ctx if workers else None,
            )
            runs.append(samples_per_second(loader, samples))
        rates[name] = round(statistics.median(runs))
    return {"samples_per_s": rates, "samples": samples, "repeats": repeats}


# ------------------------------------------------------------------ checks
EXPECTATIONS = {
    "a": [
        ("unsharded: 2,000 duplicates", lambda r: r["unsharded_duplicates"] == 2000),
        ("sharded: each integer exactly once", lambda r: r["sharded_exactly_once"]),
    ],
    "b": [
        ("reruns identical", lambda r: r["rerun_identical"]),
        ("workers draw different masks", lambda r: r["workers_differ"]),
        ("epochs draw new masks", lambda r: r["epochs_differ"]),
    ],
    "c": [
        ("random padding about 45 %", lambda r: 0.35 <= r["random_padded_fraction"] <= 0.55),
        ("bucketed padding at most 3 %", lambda r: r["bucketed_padded_fraction"] <= 0.03),
    ],
    "d": [],
}


def mp_context(name):
    """The multiprocessing context for workers; 'auto' is forkserver with torch preloaded where available."""
    if name == "auto":
        name = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else None
    ctx = multiprocessing.get_context(name)
    if ctx.get_start_method() == "forkserver":
        ctx.set_forkserver_preload(["torch", "numpy"])
    return ctx


def progress(message):
    print(message, file=sys.stderr, flush=True)


def run_all(args):
    """Run the four experiments; return {letter: {"title", "status", "result", "checks"}}."""
    ctx = mp_context(args.mp_context)
    report = {}
    with tempfile.TemporaryDirectory(prefix="lab-") as tmp:
        token_file = Path(tmp) / "train.bin"
        np.random.default_rng(args.seed).integers(0, 50_257, size=50_000).astype(np.uint16).tofile(token_file)
        experiments = {
            "a": ("sharding an iterable dataset", lambda: run_sharding(ctx, args.seed)),
            "b": ("seeding workers", lambda: run_seeding(ctx, args.seed, token_file)),
            "c": ("bucketing by length", lambda: run_bucketing(ctx, args.seed)),
            "d": ("throughput", lambda: run_throughput(ctx, args.seed, token_file, repeats=args.repeats)),
        }
        for letter, (title, run) in experiments.items():
            if letter not in args.only:
                continue
            progress(f"({letter}) {title} ...")
            start = time.perf_counter()
            entry = {"title": title}
            try:
                entry["result"] = run()
            except NotImplementedError as exc:
                entry.update(status="not implemented", detail=first_line(exc))
            except Exception as exc:  # a student's bug: report it, run the rest
                entry.update(status="error", detail=f"{type(exc).__name__}: {first_line(exc)}")
            else:
                entry["checks"] = {name: bool(ok(entry["result"])) for name, ok in EXPECTATIONS[letter]}
                entry["status"] = "ok" if all(entry["checks"].values()) else "unexpected"
            entry["seconds"] = round(time.perf_counter() - start, 2)
            progress(f"({letter}) {entry['status']} in {entry['seconds']} s")
            report[letter] = entry
    return {"package": PACKAGE, "start_method": ctx.get_start_method(), "seed": args.seed, "experiments": report}


def first_line(exc):
    """The most useful line of an exception: DataLoader worker errors wrap the original message."""
    lines = [line for line in str(exc).splitlines() if line.strip()]
    for line in reversed(lines):
        if "NotImplementedError" in line or "not implemented yet" in line:
            return line.strip()
    return lines[0].strip() if lines else type(exc).__name__


def format_report(report):
    """The human-readable table printed at the end."""
    out = [f"lab on {report['package']}/ (workers: {report['start_method']}, seed {report['seed']})", ""]
    for letter, entry in report["experiments"].items():
        out.append(f"({letter}) {entry['title']}: {entry['status']} ({entry['seconds']} s)")
        if "detail" in entry:
            out.append(f"    {entry['detail']}")
            continue
        result = entry["result"]
        if letter == "d":
            for name, rate in result["samples_per_s"].items():
                shown = f"{rate:>10,} samples/s" if rate is not None else "  (no __getitems__: not measured)"
                out.append(f"    {name:<22}{shown}")
        else:
            for key, value in result.items():
                out.append(f"    {key:<26}{value}")
        for name, ok in entry.get("checks", {}).items():
            out.append(f"    [{'ok' if ok else 'NO'}] {name}")
    return "\n".join(out)


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog=f"python -m {PACKAGE}.lab", description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--mp-context",
        choices=("auto", "fork", "spawn", "forkserver"),
        default="auto",
        help="how DataLoader workers start (default: forkserver with torch preloaded where available)",
    )
    parser.add_argument("--seed", type=int, default=0, help="seed for the data and the loaders (default 0)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE ('-' for stdout)")
    parser.add_argument("--only", default="abcd", help="which experiments to run, e.g. 'ac' (default abcd)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per throughput setup; the median is shown")
    args = parser.parse_args(argv)
    if args.mp_context not in ("auto", *multiprocessing.get_all_start_methods()):
        parser.error(f"--mp-context {args.mp_context} is not available on this platform")
    if not args.only or set(args.only) - set("abcd"):
        parser.error(f"--only takes letters from 'abcd', got {args.only!r}")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    return args


def main(argv=None):
    args = parse_args(argv)
    report = run_all(args)
    if args.json == "-":
        print(json.dumps(report, indent=2))
    else:
        print(format_report(report))
        if args.json:
            Path(args.json).write_text(json.dumps(report, indent=2), encoding="utf-8")
    statuses = [entry["status"] for entry in report["experiments"].values()]
    return 0 if all(status == "ok" for status in statuses) else 1


if __name__ == "__main__":
    sys.exit(main())
