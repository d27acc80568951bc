"""Exercise 3 (seeding): a ``worker_init_fn`` that gives every worker its own RNG.

Every ``iter(loader)`` draws a base seed from the loader's ``generator``
(or from torch's global RNG when there is none), also with
``num_workers=0``, where no worker uses it: iterating any loader advances
its generator. Only with ``persistent_workers=True`` (and workers) is it
drawn once, at the first ``iter()``, whose workers live on. Worker w runs
with ``torch.initial_seed() == base_seed + w``. PyTorch seeds torch,
``random`` and NumPy's legacy global RNG in each worker, but an RNG *object*
that a dataset made in ``__init__`` (``numpy.random.default_rng(0)``) is
pickled into every worker in the same state, so all workers draw the same
stream. ``seed_worker`` closes that gap.

Handout: LAB.md, "Seeding" and "Experiment (b): seeding".
"""

import random

import numpy as np
import torch
from torch.utils.data import get_worker_info


def seed_worker(worker_id):
    """Seed this process's RNGs from torch's seed; give the dataset copy a fresh ``rng``.

    Meant as ``DataLoader(..., worker_init_fn=seed_worker)``; the DataLoader
    calls it once in each worker, before the first item is fetched.

    Let ``seed = torch.initial_seed() % 2**32``, nothing added: in a worker,
    ``torch.initial_seed()`` already is the loader's base seed plus the
    worker id, so the seed differs between workers and between epochs as it
    is. Then:

    - NumPy's legacy global RNG is seeded with it (``numpy.random.seed``);
    - Python's ``random`` module is seeded with it (``random.seed``);
    - if this worker's copy of the dataset (``get_worker_info().dataset``)
      has an attribute ``rng``, whatever its value (``None`` included), that
      attribute is replaced by ``numpy.random.default_rng(seed)``. "Has" is
      what ``hasattr`` finds: an ``rng`` set on the instance, or one its
      class defines (a class attribute), which the new instance attribute
      then shadows. A dataset without ``rng`` is left as it is.

    Seeding torch too (``torch.manual_seed(seed)``) is allowed and not
    required: PyTorch has seeded it in the worker already, and either way
    the seed above stays the same.

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
    raise NotImplementedError('seeding: seed_worker is not implemented yet. Read its docstring, then LAB.md, "Seeding" and "Experiment (b): seeding".')
