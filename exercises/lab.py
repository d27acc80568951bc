"""The lab's four experiments, run on this package's code.

See LAB.md, "Experiment (a): sharding", "Experiment (b): seeding", "Experiment (c): bucketing"
and "Experiment (d): throughput".

    python -m exercises.lab                 # your code
    python -m exercises.lab --only c        # one experiment
    python -m exercises.lab --mp-context spawn --seed 1 --json results.json
    python -m exercises.lab --only d --repeats 1 --samples 2000   # a quick look at (d)

(a) sharding: 2,001 integers on 2 workers, without sharding (every worker
    yields the whole stream; needs no code of yours), then ``ShardedRange``
    with 2,001 integers (not a multiple of the workers) and with 1 (fewer
    integers than workers).
(b) seeding: samples that draw a random mask from the dataset's own ``rng``,
    on 2 workers, first without a ``worker_init_fn`` (which draws repeat
    across workers and epochs; needs no code of yours), then with
    ``worker_init_fn=seed_worker``: reruns, workers, epochs (the masks each
    worker draws are compared, not the shuffled batches).
(c) bucketing: 2,000 lengths uniform in [4, 64], batch 32: the padded
    fraction of random batches, of ``BucketBatchSampler`` with pools of 50
    batches (at most the bound in lab.toml's ``[bounds]``, which the grader
    checks too), and with pools of one batch (which must pad like random
    batches); then what the sampler promises beyond padding: the batches come
    in a shuffled order (the longest length rises and falls from batch to
    batch, where pool-by-pool order only rises, or only falls), and the generator decides
    (its seed replays two epochs, and the two differ).
(d) throughput: ``TokenWindows`` samples per second at three levels, item
    by item, with ``__getitems__`` and as whole batches (``read_batch``
    behind ``batch_size=None`` and a ``BatchSampler``), with 0 and 2 workers,
    next to a raw NumPy gather without a DataLoader (the data path's
    ceiling), each with its share of the ceiling (printed, never judged:
    they depend on the machine); and what makes it fast, judged: the pickle
    a worker receives (after ``__init__`` and after use) and how many reads
    of the memmap ``read_batch`` and ``__getitems__`` make for a batch.

Each experiment needs only its own exercise. An exercise that is not
implemented yet is reported as such and the other experiments still run.
Each ``[ok]``/``[NO]`` line judges your code (the figures of the code that
is not yours, such as the unsharded stream or random batches, are printed
only). The exit status is 0 when every experiment ran and showed what
LAB.md says, 1 otherwise.

Workers start with forkserver, torch and numpy preloaded, where the platform
has it (Linux, macOS), else with the platform's default (spawn on Windows);
``--mp-context`` overrides this. Why forkserver: like spawn, it sends each
worker its dataset pickled, so what breaks under spawn (a lambda, an open
memmap) breaks here too, where fork would copy the parent's memory and hide
it; it is Python 3.14's default on Linux; and with torch preloaded in the
server its workers start in a fraction of spawn's time. The report names the
start method it used. Every class is defined at module level so that spawn
and forkserver workers can unpickle it.
"""

from __future__ import annotations

import argparse
import contextlib
import importlib
import json
import multiprocessing
import pickle
import statistics
import sys
import tempfile
import time
import tomllib
from pathlib import Path

import numpy as np
import torch
from torch.utils.data import BatchSampler, DataLoader, Dataset, IterableDataset, RandomSampler

PACKAGE = __spec__.parent if __spec__ and __spec__.parent else "exercises"
NUM_WORKERS = 2
#: Tokens in the lab's token file (2 MB of uint16): large enough that a gather pays for the memory it touches.
TOKENS = 1_000_000
TITLES = {"a": "sharding an iterable dataset", "b": "seeding workers", "c": "bucketing by length", "d": "throughput"}
#: (a)'s streams: a count that is not a multiple of NUM_WORKERS, and one smaller than NUM_WORKERS.
STREAM, FEWER_THAN_WORKERS = 2_001, 1


def lab_bound(name):
    """A number the lab shares with the grader and the docstrings: ``[bounds]`` of lab.toml, at the top of the
    repository (beside this package, or in the folder the lab runs from)."""
    here = Path(__file__).resolve().parent.parent / "lab.toml"
    path = here if here.is_file() else Path("lab.toml")
    try:
        return tomllib.loads(path.read_text(encoding="utf-8"))["bounds"][name]
    except (OSError, KeyError, tomllib.TOMLDecodeError) as exc:
        raise RuntimeError(f"cannot read [bounds] {name} from {path.resolve()} ({type(exc).__name__}: {exc}); "
                           "run the lab from the repository's top folder, which holds lab.toml") from None


def exercise(name):
    """Import one exercise module of this package (``collate``, ``tokens``, ...)."""
    return importlib.import_module(f"{PACKAGE}.{name}")


@contextlib.contextmanager
def batches(loader):
    """Iterate a DataLoader and always shut its workers down on the way out.

    Left to the garbage collector (after an exception, say), the shutdown of a
    worker pool can stall for two 5 s join timeouts; explicitly it takes milliseconds.
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


class MaskedSamples(Dataset):
    """Samples of 32 token ids, each with a random mask drawn from ``self.rng`` (made in ``__init__``).

    Without ``seed_worker`` every worker receives ``rng`` in the same state and draws the same masks.
    """

    def __init__(self, n=64, length=32, mask_prob=0.15):
        self.tokens = torch.arange(n * length).reshape(n, length) + 1
        self.mask_prob = mask_prob
        self.rng = np.random.default_rng(0)

    def __len__(self):
        return len(self.tokens)

    def __getitem__(self, i):
        masked = self.rng.random(self.tokens.shape[1]) < self.mask_prob
        return self.tokens[i].masked_fill(torch.from_numpy(masked), 0)


class WholeBatches(Dataset):
    """Whole batches from ``TokenWindows.read_batch``: use with ``batch_size=None`` and ``sampler=BatchSampler(...)``.

    With ``batch_size=None`` the loader does no batching of its own: each "index" it fetches is what the sampler
    yields, here a list of indices from the BatchSampler, and each item is already a ``(B, T)`` batch.
    """

    def __init__(self, windows):
        self.windows = windows

    def __len__(self):
        return len(self.windows)

    def __getitem__(self, indices):
        return self.windows.read_batch(indices)


class PerItem(Dataset):
    """Hides a dataset's ``__getitems__`` so the loader fetches item by item."""

    def __init__(self, dataset):
        self.dataset = dataset

    def __len__(self):
        return len(self.dataset)

    def __getitem__(self, i):
        return self.dataset[i]


# ------------------------------------------------------------- experiments
def collect(dataset, ctx, **kwargs):
    """Everything a loader with NUM_WORKERS workers yields for ``dataset``."""
    loader = DataLoader(dataset, num_workers=NUM_WORKERS, multiprocessing_context=ctx, **kwargs)
    with batches(loader) as it:
        return list(it)


def run_sharding(ctx, seed, result):
    """(a) What 2 workers yield for 2,001 integers: unsharded (no exercise code), then sharded; then 1 integer sharded."""
    n = STREAM
    naive = [int(i) for i in collect(UnshardedRange(n), ctx, batch_size=None)]
    result.update(items=n, unsharded_yielded=len(naive), unsharded_duplicates=len(naive) - len(set(naive)))
    ShardedRange = exercise("sharding").ShardedRange
    sharded = [int(i) for i in collect(ShardedRange(n), ctx, batch_size=None)]
    result.update(sharded_yielded=len(sharded), sharded_duplicates=len(sharded) - len(set(sharded)),
                  sharded_exactly_once=sorted(sharded) == list(range(n)))
    few = [int(i) for i in collect(ShardedRange(FEWER_THAN_WORKERS), ctx, batch_size=None)]
    result.update(few_items=FEWER_THAN_WORKERS, few_yielded=len(few), few_exactly_once=sorted(few) == list(range(FEWER_THAN_WORKERS)))


def masked_epochs(dataset, ctx, seed, count, worker_init_fn):
    """``count`` epochs of one loader over ``dataset`` (batch 8, shuffled, 2 workers), each a list of batches."""
    loader = DataLoader(dataset, batch_size=8, shuffle=True, num_workers=NUM_WORKERS, worker_init_fn=worker_init_fn,
                        generator=torch.Generator().manual_seed(seed), multiprocessing_context=ctx)
    runs = []
    for _ in range(count):
        with batches(loader) as it:
            runs.append(list(it))
    return runs


def mask_repeats(first, second):
    """How the masks of two epochs repeat: (batches whose masks equal the other worker's, of how many; batches whose
    masks equal the same batch of the other epoch, of how many).

    Only the masks are drawn (masked tokens are 0, no real token is): batch k of an epoch holds the k-th masks its
    worker drew, whichever samples the shuffle put there. Workers take batches in turn: batch 0 came from worker 0,
    batch 1 from worker 1, and so on.
    """
    masks = [[batch == 0 for batch in run] for run in (first, second)]
    pairs = list(zip(masks[0][0::2], masks[0][1::2]))
    across_workers = sum(torch.equal(a, b) for a, b in pairs)
    across_epochs = sum(torch.equal(a, b) for a, b in zip(*masks, strict=True))
    return (across_workers, len(pairs)), (across_epochs, len(masks[0]))


def run_seeding(ctx, seed, result):
    """(b) Masked samples on 2 workers without a worker_init_fn (no exercise code), then with seed_worker: reruns,
    workers and epochs."""
    dataset = MaskedSamples()
    workers, epochs = mask_repeats(*masked_epochs(dataset, ctx, seed, 2, None))
    result.update(samples=len(dataset), unseeded_worker_repeats=workers, unseeded_epoch_repeats=epochs)
    seed_worker = exercise("seeding").seed_worker
    first, second = masked_epochs(dataset, ctx, seed, 2, seed_worker)
    (rerun,) = masked_epochs(dataset, ctx, seed, 1, seed_worker)
    workers, epochs = mask_repeats(first, second)
    masks = [[batch == 0 for batch in run] for run in (first, second)]
    result.update(seeded_worker_repeats=workers, seeded_epoch_repeats=epochs,
                  rerun_identical=all(torch.equal(a, b) for a, b in zip(first, rerun, strict=True)),
                  workers_differ=not torch.equal(masks[0][0], masks[0][1]),
                  epochs_differ=not all(torch.equal(a, b) for a, b in zip(*masks, strict=True)))


def padded_fraction(lengths, batch_sampler):
    """Share of padding when each batch is padded to its longest sequence."""
    real = padded = 0
    for batch in batch_sampler:
        sizes = [lengths[i] for i in batch]
        real += sum(sizes)
        padded += max(sizes) * len(sizes)
    return 1 - real / padded


def order_changes(lengths, batches):
    """(rises, falls): how often the longest length of a batch is above, and below, the one of the batch before."""
    longest = [max(lengths[i] for i in batch) for batch in batches]
    return sum(a < b for a, b in zip(longest, longest[1:])), sum(a > b for a, b in zip(longest, longest[1:]))


def run_bucketing(ctx, seed, result):
    """(c) Padded fraction: random batches, pools of 50 batches, pools of one batch; then the batch order and the
    generator: two epochs from a seeded generator, and two more from a generator seeded alike."""
    lengths = np.random.default_rng(seed).integers(4, 65, size=2000).tolist()  # uniform in [4, 64]
    random_batches = BatchSampler(RandomSampler(lengths, generator=torch.Generator().manual_seed(seed)), 32, False)
    result.update(sequences=len(lengths), random_padded_fraction=round(padded_fraction(lengths, random_batches), 4),
                  padding_bound=lab_bound("bucketed_padded_fraction"))
    BucketBatchSampler = exercise("bucketing").BucketBatchSampler

    def epochs(pool_batches, count):
        sampler = BucketBatchSampler(lengths, 32, pool_batches=pool_batches, generator=torch.Generator().manual_seed(seed))
        return [[[int(i) for i in batch] for batch in sampler] for _ in range(count)]

    first, second = epochs(50, 2)
    result["bucketed_padded_fraction"] = round(padded_fraction(lengths, first), 4)
    result["one_batch_pools_padded_fraction"] = round(padded_fraction(lengths, epochs(1, 1)[0]), 4)
    rises, falls = order_changes(lengths, first)
    result.update(batches=len(first), order_rises=rises, order_falls=falls,
                  generator_replays=epochs(50, 2) == [first, second], epochs_differ=first != second)


def samples_per_second(loader, samples):
    """Steady-state samples/s: the clock starts after the first batch (worker start-up excluded)."""
    with batches(loader) as it:
        next(it)
        start, count = time.perf_counter(), 0
        for x, _ in it:
            count += len(x)
            if count >= samples:
                break
        return count / (time.perf_counter() - start)


class CountingMemmap(np.memmap):
    """``np.memmap`` that counts how often a file's own memmap is indexed (arrays made from it are not counted)."""

    reads = 0

    def __getitem__(self, index):
        if getattr(self, "_mmap", None) is not None:
            CountingMemmap.reads += 1
        return super().__getitem__(index)


@contextlib.contextmanager
def counted_memmap_reads():
    """``np.memmap`` replaced by :class:`CountingMemmap` for the block (code that did ``from numpy import memmap`` is not counted)."""
    original = np.memmap
    np.memmap = CountingMemmap
    try:
        yield CountingMemmap
    finally:
        np.memmap = original


def inspect_tokens(TokenWindows, token_file, result, batch=64):
    """(d) What a worker receives and what a batch costs: pickle sizes after __init__ and after use, memmap reads per
    batch of read_batch and of __getitems__."""
    windows = TokenWindows(token_file, block_size=64)
    result["pickle_bytes_after_init"] = len(pickle.dumps(windows))
    len(windows), windows[0], windows.__getitems__([1, 2])
    result["pickle_bytes_after_use"] = len(pickle.dumps(windows))
    with counted_memmap_reads() as counter:
        counted = TokenWindows(token_file, block_size=64)
        counted[0]  # opens the memmap
        result["batch"] = batch
        for key, read in (("read_batch_reads_per_batch", counted.read_batch), ("memmap_reads_per_batch", counted.__getitems__)):
            before = counter.reads
            read(list(range(batch)))
            result[key] = counter.reads - before


def raw_gather_per_second(token_file, samples, block=64, batch=64, seed=0):
    """The ceiling of the data path: random (B, T) windows gathered straight from a memmap and widened, no DataLoader."""
    tokens = np.memmap(token_file, dtype=np.uint16, mode="r")
    try:
        rng, count = np.random.default_rng(seed), 0
        span = np.arange(block + 1)
        start = time.perf_counter()
        while count < samples:
            offsets = rng.integers(0, len(tokens) - block, size=batch)[:, None] + span
            windows = torch.from_numpy(tokens[offsets].astype(np.int64))
            x, _y = windows[:, :-1], windows[:, 1:]
            count += len(x)
        return count / (time.perf_counter() - start)
    finally:
        tokens._mmap.close()  # closed before the lab's temporary folder goes (Windows cannot delete a mapped file)


def throughput_loaders(windows, seed, workers, ctx, batch=64):
    """{level: DataLoader} for one worker count: per item, __getitems__ (automatic batching), whole batches."""
    common = dict(num_workers=workers, multiprocessing_context=ctx if workers else None)
    shuffled = dict(shuffle=True, generator=torch.Generator().manual_seed(seed))
    whole = BatchSampler(RandomSampler(windows, generator=torch.Generator().manual_seed(seed)), batch, drop_last=False)
    return {"per item": DataLoader(PerItem(windows), batch_size=batch, **shuffled, **common),
            "__getitems__": DataLoader(windows, batch_size=batch, **shuffled, **common),
            "whole batches": DataLoader(WholeBatches(windows), sampler=whole, batch_size=None, **common)}


def run_throughput(ctx, seed, result, token_file, samples=20_000, repeats=3):
    """(d) What a worker receives and what a batch reads; then samples/s at three levels with 0 and 2 workers, and the
    raw gather's ceiling."""
    TokenWindows = exercise("tokens").TokenWindows
    inspect_tokens(TokenWindows, token_file, result)
    windows = TokenWindows(token_file, block_size=64)
    result.update(samples=samples, repeats=repeats)
    runs = {}
    for _ in range(repeats):  # rounds of every setup in turn, so that a busy machine slows them alike
        for workers in (0, NUM_WORKERS):
            for level, loader in throughput_loaders(windows, seed, workers, ctx).items():
                runs.setdefault(f"{workers} workers, {level}", []).append(samples_per_second(loader, samples))
        runs.setdefault("raw gather", []).append(raw_gather_per_second(token_file, samples, seed=seed))
    result["raw_gather_per_s"] = round(statistics.median(runs.pop("raw gather")))
    result["samples_per_s"] = {name: round(statistics.median(rates)) for name, rates in runs.items()}


#: (c)'s claim on padding, with the bound it is judged by (lab.toml's [bounds], which the grader's check reads too).
PADDING_CLAIM = "pools of 50 batches pad at most the bound"

#: The largest pickle of a TokenWindows that holds only its path and sizes (a pickled memmap of the lab's file is 100 kB).
SMALL_PICKLE_BYTES = 4096

#: Each experiment's claims about the student's code, as [ok]/[NO] lines: (claim, judge of the experiment's result).
#: A claim about code that is not the student's (the unsharded stream, random batches) would always say ok: those are
#: figures, printed by result_lines. (d)'s claims are a list that more levels can join.
EXPECTATIONS = {
    "a": [("sharded: each integer exactly once, the count not a multiple of the workers", lambda r: r["sharded_exactly_once"]),
          ("sharded: each integer exactly once, fewer integers than workers", lambda r: r["few_exactly_once"])],
    "b": [("reruns identical", lambda r: r["rerun_identical"]),
          ("workers draw different masks", lambda r: r["workers_differ"]),
          ("epochs draw new masks", lambda r: r["epochs_differ"])],
    "c": [(PADDING_CLAIM, lambda r: r["bucketed_padded_fraction"] <= r["padding_bound"]),
          ("pools of one batch pad like random batches", lambda r: r["one_batch_pools_padded_fraction"] >= 0.35),
          ("batches come in a shuffled order, not pool by pool", lambda r: min(r["order_rises"], r["order_falls"]) >= (r["batches"] - 1) // 4),
          ("the generator decides: its seed replays the epochs, and each epoch differs", lambda r: r["generator_replays"] and r["epochs_differ"])],
    "d": [("pickles small right after __init__", lambda r: r["pickle_bytes_after_init"] < SMALL_PICKLE_BYTES),
          ("pickles small after use", lambda r: r["pickle_bytes_after_use"] < SMALL_PICKLE_BYTES),
          ("read_batch reads the memmap once per batch", lambda r: r["read_batch_reads_per_batch"] <= 1),
          ("__getitems__ reads the memmap once per batch", lambda r: r["memmap_reads_per_batch"] <= 1)],
}


# ------------------------------------------------------------------ running
def mp_context(name):
    """The multiprocessing context for workers; 'auto' is forkserver with torch preloaded where available."""
    if name == "auto":
        name = "forkserver" if "forkserver" in multiprocessing.get_all_start_methods() else None
    ctx = multiprocessing.get_context(name)
    if ctx.get_start_method() == "forkserver":
        ctx.set_forkserver_preload(["torch", "numpy"])
    return ctx


def run_one(letter, run):
    """One experiment as {"title", "status", "result"/"detail", "checks", "seconds"}; never raises."""
    print(f"({letter}) {TITLES[letter]} ...", file=sys.stderr, flush=True)
    start = time.perf_counter()
    entry = {"title": TITLES[letter], "result": {}}
    try:
        run(entry["result"])  # fills it step by step: what ran before a failure is kept
    except NotImplementedError as exc:
        entry.update(status="not implemented", detail=first_line(exc))
    except Exception as exc:  # a bug in the exercise: report it, run the rest
        entry.update(status="error", detail=f"{type(exc).__name__}: {first_line(exc)}")
    else:
        entry["checks"] = {name: bool(ok(entry["result"])) for name, ok in EXPECTATIONS[letter]}
        entry["status"] = "ok" if all(entry["checks"].values()) else "unexpected"
    entry["seconds"] = round(time.perf_counter() - start, 2)
    return entry


def run_all(args):
    """Run the chosen experiments; return the report (see ``format_entry`` for its display)."""
    ctx = mp_context(args.mp_context)
    report = {}
    # The folder is the lab's own: a memmap that student code keeps open (Windows locks mapped files) must not turn
    # the end of the run into a PermissionError.
    with tempfile.TemporaryDirectory(prefix="lab-", ignore_cleanup_errors=True) as tmp:
        token_file = Path(tmp) / "train.bin"
        np.random.default_rng(args.seed).integers(0, 50_257, size=TOKENS).astype(np.uint16).tofile(token_file)
        runs = {
            "a": lambda result: run_sharding(ctx, args.seed, result),
            "b": lambda result: run_seeding(ctx, args.seed, result),
            "c": lambda result: run_bucketing(ctx, args.seed, result),
            "d": lambda result: run_throughput(ctx, args.seed, result, token_file, samples=args.samples, repeats=args.repeats),
        }
        for letter in sorted(set(args.only)):
            report[letter] = run_one(letter, runs[letter])
    return {"package": PACKAGE, "start_method": ctx.get_start_method(), "seed": args.seed, "experiments": report}


def first_line(exc):
    """The most useful line of an exception: DataLoader worker errors wrap the original message."""
    lines = [line for line in str(exc).splitlines() if line.strip()]
    for line in reversed(lines):
        if "NotImplementedError" in line or "not implemented yet" in line:
            return line.strip().removeprefix("NotImplementedError: ")
    return lines[0].strip() if lines else type(exc).__name__


# ---------------------------------------------------------------- showing
def bar(value, largest, width=30):
    """A text bar ``value / largest`` of ``width`` characters ("#" where the console cannot show blocks)."""
    block = "\u2588" if (getattr(sys.stdout, "encoding", "") or "").lower().startswith("utf") else "#"
    return block * max(1 if value else 0, round(width * value / largest)) if largest else ""


def result_lines(letter, result):
    """The figures of one experiment, as the lines printed under its title."""
    if letter == "a" and "unsharded_yielded" in result:
        lines = [f"unsharded: {result['unsharded_yielded']:,} items from {NUM_WORKERS} workers, "
                 f"{result['unsharded_duplicates']:,} duplicates"]
        if "sharded_yielded" in result:
            lines.append(f"sharded:   {result['sharded_yielded']:,} items, "
                         + ("each exactly once" if result["sharded_exactly_once"] else f"{result['sharded_duplicates']:,} duplicates"
                            if result["sharded_duplicates"] else f"{result['items'] - result['sharded_yielded']:,} missing"))
        if "few_yielded" in result:
            lines.append(f"sharded:   {result['few_items']} item on {NUM_WORKERS} workers (fewer than workers), {result['few_yielded']} yielded")
        return lines
    if letter == "b" and result:
        lines = [f"{result['samples']} samples, batch 8, {NUM_WORKERS} workers, one loader seed"]
        for label, key in (("without a worker_init_fn", "unseeded"), ("with seed_worker", "seeded")):
            if f"{key}_worker_repeats" in result:
                (workers, pairs), (epochs, total) = result[f"{key}_worker_repeats"], result[f"{key}_epoch_repeats"]
                lines.append(f"{label + ':':<25} worker 1 repeats worker 0's masks in {workers} of {pairs} batches, "
                             f"epoch 2 repeats epoch 1's in {epochs} of {total}")
        return lines
    if letter == "c" and result:
        rows = [("random batches", "random_padded_fraction"), ("pools of 50 batches", "bucketed_padded_fraction"),
                ("pools of one batch", "one_batch_pools_padded_fraction")]
        lines = [f"{name:<22} padded {100 * result[key]:5.1f} %  {bar(result[key], 1.0)}" for name, key in rows if key in result]
        if "padding_bound" in result and "bucketed_padded_fraction" in result:
            lines.append(f"the bound for pools of 50 batches: {100 * result['padding_bound']:g} %")
        if "order_rises" in result:
            lines.append(f"batch order: the longest length rises {result['order_rises']} and falls {result['order_falls']} times "
                         f"in {result['batches'] - 1} steps")
            lines.append(f"generator: the same seed replays both epochs: {'yes' if result['generator_replays'] else 'no'}; "
                         f"the two epochs differ: {'yes' if result['epochs_differ'] else 'no'}")
        return lines
    if letter == "d" and "pickle_bytes_after_init" in result:
        lines = [f"pickle: {result['pickle_bytes_after_init']:,} bytes after __init__"
                 + (f", {result['pickle_bytes_after_use']:,} after use" if "pickle_bytes_after_use" in result else "")]
        if "read_batch_reads_per_batch" in result:
            lines.append(f"read_batch of {result['batch']} windows: {result['read_batch_reads_per_batch']} memmap read(s)")
        if "memmap_reads_per_batch" in result:
            lines.append(f"__getitems__ of {result['batch']} windows: {result['memmap_reads_per_batch']} memmap read(s)")
        return lines + throughput_lines(result)
    return []


def throughput_lines(result):
    """(d)'s table: samples/s of each level and worker count, with its share of the raw gather (the ceiling)."""
    rates = dict(result.get("samples_per_s") or {})
    if "raw_gather_per_s" in result:
        rates["raw gather, no DataLoader"] = result["raw_gather_per_s"]
    ceiling = result.get("raw_gather_per_s")
    top = max(rates.values(), default=0)
    share = (lambda rate: f"{100 * rate / ceiling:5.1f} %") if ceiling else (lambda rate: "")
    return [f"{name:<28} {rate:>10,} samples/s {share(rate)}  {bar(rate, top)}" for name, rate in rates.items()]


def format_entry(letter, entry):
    """One experiment as printed: title and status, its figures, then one [ok]/[NO] line per claim."""
    lines = [f"({letter}) {entry['title']}: {entry['status']}"]
    lines += [f"    {line}" for line in result_lines(letter, entry["result"])]
    if "detail" in entry:
        lines.append(f"    {entry['detail']}")
    lines += [f"    [{'ok' if ok else 'NO'}] {name}" for name, ok in entry.get("checks", {}).items()]
    return "\n".join(lines)


def format_report(report):
    """The human-readable report printed at the end."""
    head = f"lab on {report['package']}/ (workers: {report['start_method']}, seed {report['seed']})"
    body = [format_entry(letter, entry) + f"\n    ({entry['seconds']} s)" for letter, entry in report["experiments"].items()]
    return "\n\n".join([head, *body])


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog=f"python -m {PACKAGE}.lab", description=__doc__.split("\n\n")[0])
    parser.add_argument("--mp-context", choices=("auto", "fork", "spawn", "forkserver"), default="auto",
                        help="how DataLoader workers start (default: forkserver with torch preloaded where available)")
    parser.add_argument("--seed", type=int, default=0, help="seed for the data and the loaders (default 0)")
    parser.add_argument("--json", metavar="FILE", help="also write the results as JSON to FILE ('-' for stdout)")
    parser.add_argument("--only", default="abcd", help="which experiments to run, e.g. 'c' or 'ac' (default abcd)")
    parser.add_argument("--repeats", type=int, default=3, help="timed runs per throughput setup; the median is shown")
    parser.add_argument("--samples", type=int, default=20_000, help="samples per timed throughput run (default 20,000)")
    args = parser.parse_args(argv)
    if args.mp_context not in ("auto", *multiprocessing.get_all_start_methods()):
        parser.error(f"--mp-context {args.mp_context} is not available on this platform")
    if not args.only or set(args.only) - set("abcd"):
        parser.error(f"--only takes letters from 'abcd', got {args.only!r}")
    if args.repeats < 1:
        parser.error("--repeats must be at least 1")
    if args.samples < 1:
        parser.error("--samples must be at least 1")
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
    return 0 if all(entry["status"] == "ok" for entry in report["experiments"].values()) else 1


if __name__ == "__main__":
    sys.exit(main())
