"""Hostile: windows whose items compare equal to anything."""
import numpy as np


class Yes(tuple):
    def __eq__(self, other):
        return True

    def __ne__(self, other):
        return False

    __hash__ = tuple.__hash__


class TokenWindows:
    def __init__(self, path, block_size, stride=1, dtype=np.uint16):
        self.path, self.block_size, self.stride = path, block_size, stride

    def __len__(self):
        return 3

    def __getitem__(self, i):
        return Yes((Yes(), Yes()))
