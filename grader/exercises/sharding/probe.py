"""Probes for exercise 2, ShardedRange and ShardedFiles."""

from __future__ import annotations

import itertools
import os
import pickle
from pathlib import Path

from torch.utils.data import DataLoader

from grader.inside.probes.common import attempted, in_state, load_submission, plain, tagged_run


def _items(iterable):
    """Everything an iterator yields, as (type name, value) so that non-ints show up."""
    return [[type(x).__name__, plain(x)] for x in iterable]


def later_passes(dataset):
    """What the passes after a first one over ``dataset`` yield: after a partial pass (two items taken, the iterator
    dropped), two iterators taken in turns, and a copy made by pickle (as a spawn worker gets it). A pass that raises
    gives ``[["error", "<Type>: <message>"]]``: it is the fresh-iter checks' to judge, and the others' data stands."""
    def attempt(make):
        return attempted(make, lambda text: [["error", text]])

    def after_partial():
        partial = iter(dataset)
        for _ in range(2):
            next(partial, None)
        del partial
        return _items(dataset)

    def interleaved():
        one, two, got = iter(dataset), iter(dataset), [[], []]
        for _ in range(100_000):  # bounded: a stream that never ends is another promise's
            a, b = next(one, _END), next(two, _END)
            if a is _END and b is _END:
                break
            got[0] += _items([a] if a is not _END else [])
            got[1] += _items([b] if b is not _END else [])
        return got

    pair = attempt(interleaved)
    return {"after_partial": attempt(after_partial), "interleaved": pair if len(pair) == 2 else [pair, pair],
            "after_pickle": attempt(lambda: _items(pickle.loads(pickle.dumps(dataset))))}


_END = object()


def range_in_process(ns):
    """For each n: two passes over one ShardedRange(n) without workers, then the later passes (later_passes), and one
    pass through a DataLoader with num_workers=0 over a fresh ShardedRange(n) (so that each pass is judged on its own)."""
    module = load_submission("sharding")
    out = []
    for n in ns:
        dataset = module.ShardedRange(n)
        first, second = _items(dataset), _items(dataset)
        loader = _items(DataLoader(module.ShardedRange(n), batch_size=None, num_workers=0))
        out.append({"first": first, "second": second, "loader": loader, **later_passes(dataset)})
    return out


def range_in_workers(cases, start_method, state="fresh"):
    """For each (n, k): what each of k real workers yielded for ShardedRange(n), the type names of those items as the
    workers yielded them (``types``: batch_size=None passes each item through unconverted, and pickling keeps a NumPy
    integer one), and what a fresh ShardedRange(n) yields in this process without workers (``alone``). The dataset is
    put in ``state`` (common.STATES) before the DataLoader gets it."""
    module = load_submission("sharding")
    out = []
    for n, k in cases:
        batches = tagged_run(in_state(module.ShardedRange(n), state), start_method, num_workers=k, batch_size=None)
        out.append({"n": n, "k": k, "probe_pid": os.getpid(), "items": [[w, pid, plain(x)] for w, pid, x in batches],
                    "types": sorted({type(x).__name__ for _w, _pid, x in batches}),
                    "alone": [plain(x) for x in module.ShardedRange(n)],
                    "alone_in_state": _pass_in_state(lambda: module.ShardedRange(n), state)})
    return out


def _pass_in_state(make, state):
    """What one pass without workers yields over a fresh ``make()`` put in ``state`` (common.STATES), bounded; None
    when it raises. A worker judge speaks for a state only where this equals a fresh pass: where it does not, the
    state changed what the dataset yields, which is the fresh-iter checks' promise."""
    if state == "fresh":
        return None
    try:
        return [plain(x) for x in itertools.islice(in_state(make(), state), 100_000)]
    except NotImplementedError:
        raise
    except Exception:
        return None


def range_in_simulated_workers(cases):
    """For each {n, k, state}: what each of k workers yields for ShardedRange(n), the workers simulated in
    this process: torch's worker information (what ``get_worker_info()`` returns, however it was imported) is set for
    one worker after the other, each iterating its own pickled copy of the dataset, as a spawn worker gets it. The
    dataset is first put in ``state`` (common.STATES, fresh by default; a DataLoader's dataset is often iterated in
    this process first, e.g. to count it). ``alone``: what a fresh ShardedRange(n) yields without workers. Costs no process:
    many worker counts are tried for the price of one pass each. With ``bounds_only`` (n too large to iterate) each
    share is the bounds of the worker's range iterator (:func:`_range_bounds`), and nothing is iterated."""
    from torch.utils.data._utils import worker as torch_worker

    module = load_submission("sharding")
    out = []
    for case in cases:
        n, k = case["n"], case["k"]
        dataset = in_state(module.ShardedRange(n), case.get("state", "fresh"))
        shares = []
        for worker_id in range(k):
            copy = pickle.loads(pickle.dumps(dataset))
            torch_worker._worker_info = torch_worker.WorkerInfo(id=worker_id, num_workers=k, seed=worker_id, dataset=copy)
            try:
                if case.get("bounds_only"):
                    try:
                        shares.append(_range_bounds(iter(copy)))
                    except NotImplementedError:
                        raise
                    except Exception:  # an array of 2**53 integers, say: the bounds cannot be read, so none are judged
                        shares.append(None)
                else:
                    shares.append([plain(x) for x in itertools.islice(copy, 4 * n + 8)])  # bounded: a stream that never ends
            finally:
                torch_worker._worker_info = None
        alone = None if case.get("bounds_only") else [plain(x) for x in itertools.islice(module.ShardedRange(n), 4 * n + 8)]
        in_state_alone = None if case.get("bounds_only") else _pass_in_state(lambda: module.ShardedRange(n), case.get("state", "fresh"))
        out.append({**case, "shares": shares, "alone": alone, "alone_in_state": in_state_alone})
    return out


def _range_bounds(iterator):
    """[start, stop, step] of what a range iterator has left to yield, read from it without iterating (a stream of 2**53
    integers cannot be iterated), or None for any other iterator (a generator, say), which only iterating could show."""
    if type(iterator).__name__ not in ("range_iterator", "longrange_iterator"):
        return None
    _function, (whole,), position = iterator.__reduce__()
    rest = whole[position:]
    return [rest.start, rest.stop, rest.step]


def write_files(contents, names=None):
    """Write each text (UTF-8) to its own file in the scratch dir (``names[i]``, else shard<i>.txt); return the paths."""
    paths = []
    for i, text in enumerate(contents):
        path = Path(names[i] if names else f"shard{i:03d}.txt")
        path.write_bytes(text.encode("utf-8"))
        paths.append(str(path.resolve()))
    return paths


def _each_file(module, paths):
    """What a fresh ``ShardedFiles([path])`` yields for each path, one pass each, without workers."""
    return [[line for _, line in _items(module.ShardedFiles([path]))] for path in paths]


def files_each(contents):
    """For each text: the items of one pass over ``ShardedFiles([path])`` of a file holding it, without workers."""
    module = load_submission("sharding")
    return _each_file(module, write_files(contents))


def files_in_process(contents, scenarios, names=None, listing=None, pathlike=False):
    """ShardedFiles without workers: for each {rank, world}, two passes over iter(); and what each written file
    yields alone (``each_file``: one fresh ``ShardedFiles([path])`` per file, the reference of the sharding checks).

    The dataset gets the written files as ``paths``, or, with ``listing``,
    the list ``[paths[i] for i in listing]`` (an order of its own, repeats
    allowed); as ``pathlib.Path`` objects with ``pathlike``.
    """
    module = load_submission("sharding")
    written = write_files(contents, names)
    paths = written if listing is None else [written[i] for i in listing]
    if pathlike:
        paths = [Path(p) for p in paths]
    out = []
    for s in scenarios:
        dataset = module.ShardedFiles(paths, rank=s["rank"], world_size=s["world"])
        out.append({"first": _items(dataset), "second": _items(dataset), **later_passes(dataset)})
    return {"scenarios": out, "each_file": _each_file(module, written)}


def files_memory(file_mb):
    """Iterate ShardedFiles over one file of ``file_mb`` lines of 1 MiB each (NUL characters, then a newline).

    The file is sparse (no disk blocks but one page per newline): reading it
    whole would raise this process's peak memory by its size, which the
    sandbox's zygote measures from outside; reading it line by line holds a
    line or two at a time. Returns how many lines came back and their
    lengths, without keeping them.
    """
    module = load_submission("sharding")
    path = Path("large.txt").resolve()
    with open(path, "wb") as f:
        for k in range(1, file_mb + 1):
            f.seek((k << 20) - 1)
            f.write(b"\n")
    count, lengths = 0, set()
    for line in module.ShardedFiles([str(path)]):
        count += 1
        lengths.add(len(line))
    return {"lines": count, "lengths": sorted(lengths)[:5]}


def files_in_workers(contents, world, k, start_method, state="fresh"):
    """ShardedFiles with k real workers on every rank of a simulated world: items per (rank, worker), and what
    each file yields alone in this process (``each_file``, see files_in_process). Each rank's dataset is put in
    ``state`` (common.STATES) before the DataLoader gets it."""
    module = load_submission("sharding")
    paths = write_files(contents)
    out = []
    for rank in range(world):
        dataset = in_state(module.ShardedFiles(paths, rank=rank, world_size=world), state)
        batches = tagged_run(dataset, start_method, num_workers=k, batch_size=None)
        out.append({"rank": rank, "probe_pid": os.getpid(), "items": [[w, pid, plain(x)] for w, pid, x in batches],
                    "alone": [plain(x) for x in module.ShardedFiles(paths, rank=rank, world_size=world)],
                    "alone_in_state": _pass_in_state(lambda: module.ShardedFiles(paths, rank=rank, world_size=world), state)})
    return {"ranks": out, "each_file": _each_file(module, paths)}


def preflight(module):
    """Each entry point called once on a tiny input (see common.entry_points)."""
    return {"ShardedRange.__iter__": lambda: list(module.ShardedRange(2)),
            "ShardedFiles.__iter__": lambda: list(module.ShardedFiles([]))}
