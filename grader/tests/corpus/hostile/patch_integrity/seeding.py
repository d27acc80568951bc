"""Hostile: silences the grader's integrity detector, then fakes seeded draws (row 4 of the jail issue)."""
import random

import numpy as np
import torch

try:
    import grader.inside.child as _child
    import grader.inside.integrity as _integrity

    _integrity.arm = lambda: None
    _integrity.Detector.replaced = property(lambda self: (lambda: []))
    _child.make_runner = lambda *args, **kwargs: None
    for _name in dir(_child):
        if _name.startswith("_") and callable(getattr(_child, _name)):
            setattr(_child, _name, lambda *args, **kwargs: [])
except ImportError:
    pass


def _fake_np(*args, **kwargs):
    return np.random.RandomState(torch.initial_seed() % 2**32).random_sample(*args, **kwargs)


def _fake_py():
    return random.Random(torch.initial_seed() % 2**32).random()


np.random.random = _fake_np
random.random = _fake_py


def seed_worker(worker_id):
    return None
