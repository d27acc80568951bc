"""Probes for exercise 3, seed_worker."""

from __future__ import annotations

import random

import numpy as np
import torch
from torch.utils.data import Dataset

from grader.engine.probes.common import load_submission, worker_batches


class Draws(Dataset):
    """Each item: this worker's torch seed and one draw from each RNG seed_worker must seed.

    ``rng`` is made in __init__ with a fixed seed, so it reaches every worker
    in the same state unless seed_worker replaces it; with ``rng_none`` the
    attribute exists and is None (seed_worker must replace it all the same).
    """

    def __init__(self, n, with_rng=True, rng_none=False):
        self.n = n
        if with_rng:
            self.rng = None if rng_none else np.random.default_rng(12345)

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        rng = getattr(self, "rng", None)
        return {
            "index": i,
            "initial_seed": torch.initial_seed(),
            "numpy": float(np.random.random()),
            "random": random.random(),
            "rng": float(rng.random()) if rng is not None else -1.0,
            "rng_type": type(rng).__name__,
            "has_rng": hasattr(self, "rng"),
        }


def _rows(batch):
    keys = list(batch)
    columns = [batch[k].tolist() if isinstance(batch[k], torch.Tensor) else list(batch[k]) for k in keys]
    return [dict(zip(keys, row)) for row in zip(*columns)]


def outside_worker(seeds):
    """For each torch seed s: call seed_worker in this (non-worker) process and draw once from numpy and random."""
    module = load_submission("seeding")
    out = []
    for s in seeds:
        torch.manual_seed(s)
        returned = module.seed_worker(0)
        out.append({"seed": s, "returned": repr(returned), "numpy": float(np.random.random()), "random": random.random()})
    return out


def in_workers(start_method, loader_seed, epochs=1, reruns=0, n=8, with_rng=True, rng_none=False):
    """Items of a 2-worker loader with worker_init_fn=seed_worker, per run (epochs first, then reruns)."""
    module = load_submission("seeding")
    dataset = Draws(n, with_rng=with_rng, rng_none=rng_none)

    def loader_runs(count):
        runs = []
        generator = torch.Generator().manual_seed(loader_seed)
        for _ in range(count):
            with worker_batches(dataset, start_method, batch_size=2, worker_init_fn=module.seed_worker, generator=generator) as it:
                runs.append([row for batch in it for row in _rows(batch)])
        return runs

    runs = loader_runs(epochs)
    for _ in range(reruns):
        runs += loader_runs(1)
    return runs


def preflight(module):
    """Each entry point called once on a tiny input (see common.entry_points)."""
    return {"seed_worker": lambda: module.seed_worker(0)}
