# WRONG: passes torch.initial_seed() (a 64-bit value) to np.random.seed without % 2**32, which raises ValueError for large seeds.
# breaks: seeding.seed_value, seeding.numpy_global, seeding.python_random, seeding.dataset_rng_replaced, seeding.rng_none_replaced, seeding.rng_on_the_class, seeding.dataset_without_rng, seeding.reruns_workers_epochs
"""Exercise 3 (seeding): a ``worker_init_fn`` that gives every worker its own RNG.

At each ``iter(loader)`` the DataLoader draws a base seed from its
``generator`` (or from torch's global RNG when there is none), and worker w
runs with ``torch.initial_seed() == base_seed + w``. PyTorch seeds torch,
``random`` and NumPy's legacy global RNG in each worker, but an RNG *object*
that a dataset made in ``__init__`` (``numpy.random.default_rng(0)``) is
pickled into every worker in the same state, so all workers draw the same
stream. ``seed_worker`` closes that gap.

Lab text: "Seeding" and experiment (b) of the lab runner.
"""

import random

import numpy as np
import torch
from torch.utils.data import get_worker_info


def seed_worker(worker_id):
    """Seed this process's RNGs from torch's seed; give the dataset copy a fresh ``rng``.

    Meant as ``DataLoader(..., worker_init_fn=seed_worker)``; the DataLoader
    calls it once in each worker, before the first item is fetched.

    Let ``seed = torch.initial_seed() % 2**32`` (in a worker that is the
    loader's base seed plus the worker id, so it differs between workers and
    between epochs). Then:

    - NumPy's legacy global RNG is seeded with it (``numpy.random.seed``);
    - Python's ``random`` module is seeded with it (``random.seed``);
    - if this worker's copy of the dataset (``get_worker_info().dataset``)
      has an attribute ``rng``, that attribute is replaced by
      ``numpy.random.default_rng(seed)``. A dataset without ``rng`` is left
      as it is.

    Called outside a DataLoader worker (``get_worker_info()`` is None), it
    seeds NumPy and ``random`` the same way and touches no dataset.
    ``worker_id`` is accepted because the DataLoader passes it; the seed
    comes from ``torch.initial_seed()``, which already includes it.

    Consequence: with ``DataLoader(ds, num_workers=k, worker_init_fn=seed_worker,
    generator=torch.Generator().manual_seed(s))`` a rerun with the same s
    gives identical batches, different workers draw different streams, and
    each epoch draws new ones.

    Returns:
        None.
    """
    seed = torch.initial_seed()
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(seed)
