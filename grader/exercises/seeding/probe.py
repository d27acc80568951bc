"""Probes for exercise 3, seed_worker.

Every draw comes back with the draw the same RNG would have given had
seed_worker not touched it (``untouched``), so that a check can tell which
RNGs seed_worker seeded from the seed it used: "NumPy is seeded" and "with
torch.initial_seed() % 2**32" are then judged apart.
"""

from __future__ import annotations

import copy
import random

import numpy as np
import torch
from torch.utils.data import Dataset, get_worker_info

from grader.inside.probes.common import describe, error_text, load_submission, worker_batches

#: In a worker: the next draws of NumPy's global RNG, random and dataset.rng as they were before seed_worker ran,
#: and the type of what seed_worker returned (set by SeedThenCall, read by Draws).
_BEFORE = {}


def next_draws(dataset=None):
    """What np.random.random(), random.random() and dataset.rng.random() would give next, without advancing them
    (-1.0 for a dataset without a Generator as rng)."""
    numpy_rng = np.random.RandomState()
    numpy_rng.set_state(np.random.get_state())
    python_rng = random.Random()
    python_rng.setstate(random.getstate())
    rng = getattr(dataset, "rng", None)
    return {"numpy": float(numpy_rng.random_sample()), "random": python_rng.random(),
            "rng": float(copy.deepcopy(rng).random()) if isinstance(rng, np.random.Generator) else -1.0}


class SeedThenCall:
    """A worker_init_fn that notes the RNGs' next draws and torch's seed, then calls the student's seed_worker
    (picklable: module level): a seed_worker that re-seeds torch moves torch's seed after, not before."""

    def __init__(self, seed_worker):
        self.seed_worker = seed_worker

    def __call__(self, worker_id):
        _BEFORE.update(next_draws(get_worker_info().dataset))
        _BEFORE["seed_before"] = str(torch.initial_seed())  # a string: 64-bit seeds do not fit collate's int64
        returned = self.seed_worker(worker_id)
        _BEFORE["returned"] = "None" if returned is None else describe(returned)


class Draws(Dataset):
    """Each item: this worker's torch seed, one draw from each RNG seed_worker must seed, and those RNGs' draws before it ran.

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
            "initial_seed": str(torch.initial_seed()),  # a string: a seed of 2**63 or more does not fit collate's int64
            "numpy": float(np.random.random()),
            "random": random.random(),
            "rng": float(rng.random()) if isinstance(rng, (np.random.Generator, np.random.RandomState)) else -1.0,
            "rng_type": type(rng).__name__,
            "has_rng": hasattr(self, "rng"),
            "untouched": dict(_BEFORE),
        }


def _rows(batch):
    keys = [k for k in batch if k != "untouched"]
    columns = [batch[k].tolist() if isinstance(batch[k], torch.Tensor) else list(batch[k]) for k in keys]
    untouched = batch["untouched"]
    befores = [{k: (v[j].item() if isinstance(v, torch.Tensor) else v[j]) for k, v in untouched.items()}
               for j in range(len(columns[0]))]
    rows = [dict(zip(keys, row), untouched=before) for row, before in zip(zip(*columns), befores)]
    for row in rows:
        row["initial_seed"] = int(row["initial_seed"])
        row["seed_before"] = int(row["untouched"].pop("seed_before", row["initial_seed"]))
    return rows


def outside_worker(seeds):
    """For each torch seed s: call seed_worker in this (non-worker) process and draw once from numpy and random.

    Per seed: what it returned, the draws, and the draws NumPy and random
    would have given without the call (``untouched``); or the exception it raised.
    """
    module = load_submission("seeding")
    out = []
    for s in seeds:
        torch.manual_seed(s)
        untouched = next_draws()
        try:
            returned = module.seed_worker(0)
        except NotImplementedError:
            raise
        except Exception as exc:
            out.append({"seed": s, "error": error_text(exc)})
            continue
        out.append({"seed": s, "returned": "None" if returned is None else describe(returned),
                    "numpy": float(np.random.random()), "random": random.random(), "untouched": untouched})
    return out


class ClassRngDraws(Draws):
    """Draws whose rng is a class attribute (made once, with a fixed seed): the instance has none of its own."""

    rng = np.random.default_rng(12345)

    def __init__(self, n):
        super().__init__(n, with_rng=False)


class _Plain:
    """A dataset copy of the simulated worker: an rng (or none) on the instance or on its class, per case."""


_RNG_KINDS = {"random_state": lambda: np.random.RandomState(0), "python_random": lambda: random.Random(0),
              "generator": lambda: np.random.default_rng(12345), "none": lambda: None}


def simulated_worker(cases, seed):
    """For each {where: "instance" | "class", kind}: call seed_worker(0) as a worker would, without starting one: torch
    is seeded with ``seed`` and torch's worker information (what ``get_worker_info()`` returns, however it was imported)
    names a fresh dataset whose rng is ``kind`` (see _RNG_KINDS), set on the instance or defined by its class. The
    cases follow one another in this process, each after the one before drew from its new rng: a second seeding with
    the same seed must give a fresh Generator again.

    Per case: the type of ``dataset.rng`` after the call, whether the instance holds it (``own``), whether the class's
    attribute is still the one it defined (``class_kept``), and whether the rng draws what ``default_rng(seed %
    2**32)`` draws (``seeded``); or the exception the call raised."""
    from torch.utils.data._utils import worker as torch_worker

    module = load_submission("seeding")
    out = []
    for case in cases:
        cls = type("Dataset", (_Plain,), {})
        dataset = cls()
        original = _RNG_KINDS[case["kind"]]()
        setattr(cls if case["where"] == "class" else dataset, "rng", original)
        torch.manual_seed(seed)
        torch_worker._worker_info = torch_worker.WorkerInfo(id=0, num_workers=2, seed=seed, dataset=dataset)
        try:
            module.seed_worker(0)
        except NotImplementedError:
            raise
        except Exception as exc:
            out.append({**case, "error": error_text(exc)})
            continue
        finally:
            torch_worker._worker_info = None
        rng = getattr(dataset, "rng", None)
        seeded = (isinstance(rng, np.random.Generator)
                  and float(copy.deepcopy(rng).random()) == float(np.random.default_rng(seed % 2**32).random()))
        out.append({**case, "rng_type": type(rng).__name__, "own": "rng" in vars(dataset), "replaced": rng is not original,
                    "class_kept": case["where"] != "class" or cls.__dict__.get("rng", _MISSING) is original, "seeded": seeded})
        if isinstance(rng, (np.random.Generator, np.random.RandomState)):
            rng.random()  # the worker draws from it, as a dataset's __getitem__ does, before the next case is seeded
    return out


_MISSING = object()


def in_workers(start_method, loader_seed, epochs=1, reruns=0, n=8, with_rng=True, rng_none=False, rng_on_class=False,
               num_workers=2):
    """Items of a loader with ``num_workers`` workers and worker_init_fn=seed_worker (through SeedThenCall), per run
    (epochs first, then reruns); with ``rng_on_class`` over a dataset whose rng is a class attribute. Each row also
    holds torch's seed as seed_worker found it (``seed_before``)."""
    module = load_submission("seeding")
    dataset = ClassRngDraws(n) if rng_on_class else Draws(n, with_rng=with_rng, rng_none=rng_none)
    init = SeedThenCall(module.seed_worker)

    def loader_runs(count):
        runs = []
        generator = torch.Generator().manual_seed(loader_seed)
        for _ in range(count):
            with worker_batches(dataset, start_method, num_workers, batch_size=2, worker_init_fn=init,
                                generator=generator) as it:
                runs.append([row for batch in it for row in _rows(batch)])
        return runs

    runs = loader_runs(epochs)
    for _ in range(reruns):
        runs += loader_runs(1)
    return runs


def preflight(module):
    """Each entry point called once on a tiny input (see common.entry_points)."""
    return {"seed_worker": lambda: module.seed_worker(0)}
