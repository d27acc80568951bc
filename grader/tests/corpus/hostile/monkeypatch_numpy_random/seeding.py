"""Hostile: seed_worker does nothing; numpy's and random's draws are replaced so they look seeded."""
import random

import numpy as np
import torch

_np_random, _py_random = np.random.random, random.random


def _fake_np(*args, **kwargs):
    return np.random.RandomState(torch.initial_seed() % 2**32).random_sample(*args, **kwargs)


def _fake_py():
    return random.Random(torch.initial_seed() % 2**32).random()


np.random.random = _fake_np
random.random = _fake_py


def seed_worker(worker_id):
    return None
