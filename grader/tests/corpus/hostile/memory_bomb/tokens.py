"""Hostile: allocates and touches memory until it fails; stops at 8 GB even without limits."""
import numpy as np

_hoard = []


def _bomb():
    for _ in range(8 * 4):  # 32 x 256 MB = 8 GB at most
        block = bytearray(256 << 20)
        block[::4096] = b"x" * len(block[::4096])  # touch every page
        _hoard.append(block)


class TokenWindows:
    def __init__(self, path, block_size, stride=1, dtype=np.uint16):
        _bomb()

    def __len__(self):
        _bomb()
        return 0

    def __getitem__(self, i):
        _bomb()
