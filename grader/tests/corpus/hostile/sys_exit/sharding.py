"""Hostile: every entry point calls sys.exit (SystemExit is a BaseException)."""
import sys

from torch.utils.data import IterableDataset


class ShardedRange(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        sys.exit(0)


class ShardedFiles(IterableDataset):
    def __init__(self, paths, rank=0, world_size=1):
        self.paths = list(paths)

    def __iter__(self):
        sys.exit("done")
