"""Probes for exercise 2, ShardedRange and ShardedFiles."""

from __future__ import annotations

import os
from pathlib import Path

from grader.engine.probes.common import load_submission, plain, tagged_run


def _items(iterable):
    """Everything an iterator yields, as (type name, value) so that non-ints show up."""
    return [[type(x).__name__, plain(x)] for x in iterable]


def range_in_process(ns):
    """For each n: two passes over iter(ShardedRange(n)) without workers."""
    module = load_submission("sharding")
    out = []
    for n in ns:
        dataset = module.ShardedRange(n)
        out.append({"first": _items(dataset), "second": _items(dataset)})
    return out


def range_in_workers(cases, start_method):
    """For each (n, k): what each of k real workers yielded for ShardedRange(n)."""
    module = load_submission("sharding")
    out = []
    for n, k in cases:
        batches = tagged_run(module.ShardedRange(n), start_method, num_workers=k, batch_size=None)
        out.append({"n": n, "k": k, "probe_pid": os.getpid(), "items": [[w, pid, plain(x)] for w, pid, x in batches]})
    return out


def write_files(contents):
    """Write each text (bytes as given, UTF-8) to its own file in the scratch dir; return the paths."""
    paths = []
    for i, text in enumerate(contents):
        path = Path(f"shard{i:03d}.txt")
        path.write_bytes(text.encode("utf-8"))
        paths.append(str(path.resolve()))
    return paths


def files_in_process(contents, scenarios):
    """ShardedFiles without workers: for each {rank, world}, two passes over iter()."""
    module = load_submission("sharding")
    paths = write_files(contents)
    out = []
    for s in scenarios:
        dataset = module.ShardedFiles(paths, rank=s["rank"], world_size=s["world"])
        out.append({"first": _items(dataset), "second": _items(dataset)})
    return out


def files_in_workers(contents, world, k, start_method):
    """ShardedFiles with k real workers on every rank of a simulated world: items per (rank, worker)."""
    module = load_submission("sharding")
    paths = write_files(contents)
    out = []
    for rank in range(world):
        batches = tagged_run(module.ShardedFiles(paths, rank=rank, world_size=world), start_method, num_workers=k, batch_size=None)
        out.append({"rank": rank, "probe_pid": os.getpid(), "items": [[w, pid, plain(x)] for w, pid, x in batches]})
    return out


def preflight(module):
    """Each entry point called once on a tiny input (see common.entry_points)."""
    return {"ShardedRange.__iter__": lambda: list(module.ShardedRange(2)),
            "ShardedFiles.__iter__": lambda: list(module.ShardedFiles([]))}
