"""Benchmarks of this package's BucketBatchSampler and TokenWindows.

    python -m exercises.bench             # your code
    python -m solutions.bench --repeats 5 # the reference

Prints medians of side-by-side runs (alternating, so a busy machine slows
both alike):

- one epoch of ``BucketBatchSampler`` over 1,000,000 lengths uniform in
  [4, 64], batch 64, next to torch's ``BatchSampler(RandomSampler)`` as the
  baseline;
- ``TokenWindows`` samples per second through a DataLoader with 0 workers,
  block 64, batch 64: per-item ``__getitem__`` versus batched
  ``__getitems__`` (when the class has one).

Numbers depend on the machine; nothing here is judged.
"""

from __future__ import annotations

import argparse
import importlib
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import BatchSampler, DataLoader, RandomSampler

PACKAGE = __spec__.parent if __spec__ and __spec__.parent else "exercises"


def _lab():
    return importlib.import_module(f"{PACKAGE}.lab")


def epoch_seconds(make_sampler):
    sampler = make_sampler()
    start = time.perf_counter()
    batches = sum(1 for _ in sampler)
    return time.perf_counter() - start, batches


def bench_bucketing(repeats, n=1_000_000, batch_size=64):
    """Median seconds for one epoch: bucketed versus plain random batches."""
    BucketBatchSampler = importlib.import_module(f"{PACKAGE}.bucketing").BucketBatchSampler
    lengths = np.random.default_rng(0).integers(4, 65, size=n)
    setups = {
        "BucketBatchSampler": lambda: BucketBatchSampler(lengths, batch_size, generator=torch.Generator().manual_seed(0)),
        "BatchSampler(RandomSampler)": lambda: BatchSampler(
            RandomSampler(range(n), generator=torch.Generator().manual_seed(0)), batch_size, drop_last=False
        ),
    }
    times = {name: [] for name in setups}
    for _ in range(repeats):
        for name, make in setups.items():
            seconds, batches = epoch_seconds(make)
            times[name].append(seconds)
    return {name: statistics.median(t) for name, t in times.items()}, batches


def bench_tokens(repeats, tokens=1_000_000, block=64, batch_size=64, samples=50_000):
    """Median samples/s with 0 workers: per-item versus batched reads."""
    lab = _lab()
    TokenWindows = importlib.import_module(f"{PACKAGE}.tokens").TokenWindows
    with tempfile.TemporaryDirectory() as tmp:
        path = Path(tmp) / "train.bin"
        np.random.default_rng(0).integers(0, 50_257, size=tokens).astype(np.uint16).tofile(path)
        windows = TokenWindows(path, block)
        setups = {"per-item __getitem__": lab.PerItem(windows)}
        if hasattr(windows, "__getitems__"):
            setups["batched __getitems__"] = windows
        rates = {name: [] for name in setups}
        for _ in range(repeats):
            for name, dataset in setups.items():
                loader = DataLoader(dataset, batch_size=batch_size, shuffle=True, generator=torch.Generator().manual_seed(0))
                rates[name].append(lab.samples_per_second(loader, samples))
    return {name: statistics.median(r) for name, r in rates.items()}


def main(argv=None):
    parser = argparse.ArgumentParser(prog=f"python -m {PACKAGE}.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per setup; the median is shown (default 3)")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    torch.set_num_threads(1)  # comparable figures on shared machines
    print(f"{PACKAGE}: medians of {args.repeats} alternating runs, torch {torch.__version__}, 1 thread")
    try:
        epochs, batches = bench_bucketing(args.repeats)
        base = epochs["BatchSampler(RandomSampler)"]
        print(f"\none epoch over 1,000,000 lengths, batch 64 ({batches:,} batches):")
        for name, seconds in epochs.items():
            print(f"  {name:<30}{seconds:8.3f} s   ({seconds / base:.2f}x the random baseline)")
    except NotImplementedError as exc:
        print(f"\nbucketing: not implemented yet ({exc})")
    try:
        rates = bench_tokens(args.repeats)
        print("\nTokenWindows through DataLoader(batch_size=64, num_workers=0), block 64, 1,000,000 tokens:")
        for name, rate in rates.items():
            print(f"  {name:<30}{rate:12,.0f} samples/s")
        if len(rates) == 1:
            print("  (no __getitems__: batched reads not measured)")
    except NotImplementedError as exc:
        print(f"\ntokens: not implemented yet ({exc})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
