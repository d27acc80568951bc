"""Benchmarks of this package's BucketBatchSampler and TokenWindows.

    python -m exercises.bench             # your code
    python -m exercises.bench --repeats 5 # steadier medians
    python -m exercises.bench --compare old/tokens.py   # TokenWindows of two files, side by side

Prints medians of side-by-side runs (alternating, so a busy machine slows
both alike):

- one epoch of ``BucketBatchSampler`` over 1,000,000 lengths uniform in
  [4, 64], batch 64, next to torch's ``BatchSampler(RandomSampler)`` as the
  baseline;
- ``TokenWindows`` samples per second through a DataLoader with 0 workers,
  block 64, batch 64, at the three levels of LAB.md's experiment (d): per
  item (``__getitem__``), ``__getitems__``, and whole batches
  (``read_batch`` behind ``batch_size=None`` over a ``BatchSampler``), next
  to a raw NumPy gather without a DataLoader, the data path's ceiling; each
  with its share of that ceiling.

Numbers depend on the machine; nothing here is judged.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import statistics
import sys
import tempfile
import time
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import BatchSampler, RandomSampler

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


def bench_tokens(repeats, tokens=1_000_000, samples=50_000, classes=None):
    """{name: {level: median samples/s}} with 0 workers at each level of experiment (d), and of the raw gather (the
    ceiling), for each TokenWindows class of ``classes`` (default: this package's), all measured in the same rounds.

    A level whose method is not written yet is ``None``.
    """
    classes = classes or {PACKAGE: importlib.import_module(f"{PACKAGE}.tokens").TokenWindows}
    with tempfile.TemporaryDirectory(ignore_cleanup_errors=True) as tmp:  # a memmap left open must not fail the end
        path = Path(tmp) / "train.bin"
        np.random.default_rng(0).integers(0, 50_257, size=tokens).astype(np.uint16).tofile(path)
        return token_rates(path, repeats, samples, classes)  # its datasets and their memmaps are gone before the folder goes


def token_rates(path, repeats, samples, classes):
    lab = _lab()
    windows = {name: TokenWindows(path, 64) for name, TokenWindows in classes.items()}
    rates = {name: {} for name in windows}
    for _ in range(repeats):  # rounds of every setup in turn, so that a busy machine slows them alike
        for name, dataset in windows.items():
            for level, loader in lab.throughput_loaders(dataset, 0, 0, None).items():
                if rates[name].get(level, []) is None:
                    continue
                try:
                    rates[name].setdefault(level, []).append(lab.samples_per_second(loader, samples))
                except NotImplementedError:
                    rates[name][level] = None
        ceiling = lab.raw_gather_per_second(path, samples)
        for name in windows:
            rates[name].setdefault("raw gather, no DataLoader", []).append(ceiling)
    return {name: {level: statistics.median(r) if r else None for level, r in levels.items()} for name, levels in rates.items()}


def load_tokens(path):
    """The TokenWindows class of another tokens.py (--compare)."""
    spec = importlib.util.spec_from_file_location("compared_tokens", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.TokenWindows


def main(argv=None):
    parser = argparse.ArgumentParser(prog=f"python -m {PACKAGE}.bench", description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeats", type=int, default=3, help="runs per setup; the median is shown (default 3)")
    parser.add_argument("--compare", metavar="TOKENS_PY", help="also time the TokenWindows of another tokens.py, "
                        "in the same rounds (an earlier version of yours, say)")
    args = parser.parse_args(argv)
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.compare and not Path(args.compare).is_file():
        parser.error(f"--compare {args.compare}: no such file")
    torch.set_num_threads(1)  # comparable figures on shared machines
    print(f"{PACKAGE}: medians of {args.repeats} alternating runs, torch {torch.__version__}, 1 thread")
    if not args.compare:
        try:
            epochs, batches = bench_bucketing(args.repeats)
            base = epochs["BatchSampler(RandomSampler)"]
            print(f"\none epoch over 1,000,000 lengths, batch 64 ({batches:,} batches):")
            for name, seconds in epochs.items():
                print(f"  {name:<30}{seconds:8.3f} s   ({seconds / base:.2f}x the random baseline)")
        except NotImplementedError as exc:
            print(f"\nbucketing: not implemented yet ({exc})")
    try:
        classes = {PACKAGE: importlib.import_module(f"{PACKAGE}.tokens").TokenWindows}
        if args.compare:
            classes[args.compare] = load_tokens(args.compare)
        for name, rates in bench_tokens(args.repeats, classes=classes).items():
            ceiling = rates["raw gather, no DataLoader"]
            print(f"\n{name}: TokenWindows through a DataLoader, 0 workers, block 64, batch 64, 1,000,000 tokens "
                  "(share of the raw gather):")
            for level, rate in rates.items():
                print(f"  {level:<30}" + (f"{rate:12,.0f} samples/s  {100 * rate / ceiling:5.1f} %" if rate else "  not implemented yet"))
    except NotImplementedError as exc:
        print(f"\ntokens: not implemented yet ({exc})")
    return 0


if __name__ == "__main__":
    sys.exit(main())
