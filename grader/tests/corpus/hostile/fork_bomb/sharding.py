"""Hostile: forks up to 200 sleeping processes per call (each sleeps at most 120 s)."""
import os
import time

from torch.utils.data import IterableDataset


def _bomb():
    for _ in range(200):
        try:
            pid = os.fork()
        except OSError:
            break
        if pid == 0:
            try:
                time.sleep(120)
            finally:
                os._exit(0)
    return iter(())


class ShardedRange(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return _bomb()


class ShardedFiles(IterableDataset):
    def __init__(self, paths, rank=0, world_size=1):
        self.paths = list(paths)

    def __iter__(self):
        return _bomb()
