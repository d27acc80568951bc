"""Helpers of the public tests: which start methods to test, DataLoaders with real workers, a worker simulated in
this process, stubs that fail fast.

The test modules import them (``from lab_helpers import worker_loader``);
pytest's hooks and fixtures are in ``conftest.py``.
"""

from __future__ import annotations

import contextlib
import pickle
import random

import numpy as np
import torch

# The lab script's helpers, one copy for both: iterate a DataLoader, always shut its workers down; the handout's
# whole-batch recipe (TokenWindows.read_batch behind batch_size=None and a BatchSampler).
from exercises.lab import WholeBatches, batches  # noqa: F401  (re-exported to the test modules)


def start_methods():
    """Worker start methods to test: spawn everywhere, fork and forkserver where the platform has them.

    fork is only used on Linux: macOS has it but it is unsafe there and not the default.
    """
    import multiprocessing
    import sys

    available = multiprocessing.get_all_start_methods()
    methods = ["spawn"]
    if sys.platform.startswith("linux"):
        methods.insert(0, "fork")
    if "forkserver" in available:
        methods.append("forkserver")
    return methods


def fails_here_if_not_done(call):
    """Run ``call()`` once in this process, so that an unfinished stub fails here, in milliseconds,
    instead of after worker processes have started (a spawn worker takes seconds to start).

    Only NotImplementedError is passed on: any other problem is for the worker run to show.
    """
    try:
        call()
    except NotImplementedError:
        raise
    except Exception:
        pass


def seed_worker_here(lab):
    """Call seed_worker in this process (outside a worker), leaving the RNGs of this process as they were."""
    numpy_state, random_state = np.random.get_state(), random.getstate()
    try:
        lab.seeding.seed_worker(0)
    finally:
        np.random.set_state(numpy_state)
        random.setstate(random_state)


@contextlib.contextmanager
def as_worker(dataset, worker_id, num_workers, base_seed=0):
    """Run the ``with`` body in this process as DataLoader worker ``worker_id`` of ``num_workers`` would run it, in
    milliseconds instead of the seconds a worker process takes to start; yields the worker's copy of ``dataset``.

    Inside, ``get_worker_info()`` (however it was imported) returns that worker's information, whose ``dataset`` is
    a pickled copy of ``dataset`` (as a spawn or forkserver worker gets it), and ``torch.initial_seed()`` is
    ``base_seed + worker_id``, as PyTorch seeds a worker. Afterwards both are as they were, and so are NumPy's and
    ``random``'s global RNGs. The real worker tests (marked ``workers``) stay the proof; this finds most mistakes first.
    """
    from torch.utils.data._utils import worker as torch_worker

    copy = pickle.loads(pickle.dumps(dataset))
    seed = base_seed + worker_id
    saved = torch_worker._worker_info, torch.initial_seed(), torch.get_rng_state(), np.random.get_state(), random.getstate()
    torch.manual_seed(seed)
    torch_worker._worker_info = torch_worker.WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=copy)
    try:
        yield copy
    finally:
        torch_worker._worker_info = saved[0]
        torch.manual_seed(saved[1])
        torch.set_rng_state(saved[2])
        np.random.set_state(saved[3])
        random.setstate(saved[4])


WORKER_TIMEOUT_S = 60
"""DataLoader(timeout=...) for worker tests: a hung worker fails the test instead of freezing it.

60 s, as PyTorch's own DataLoader tests (15 s proved flaky there): a cold spawn worker imports torch first.
The worker tests' pytest time limits sit above it."""


def worker_loader(dataset, start_method, num_workers=2, **kwargs):
    """A DataLoader with real worker processes started by ``start_method``."""
    import multiprocessing

    from torch.utils.data import DataLoader

    return DataLoader(
        dataset,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing.get_context(start_method),
        timeout=WORKER_TIMEOUT_S,
        **kwargs,
    )
