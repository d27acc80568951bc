"""Hostile: allocates memory in every method until it fails; stops at 8 GB even without limits.

The first :data:`WRITTEN_BLOCKS` blocks are written page by page, resident memory as a real hog's; the rest are
reserved and left unwritten, which reaches the address-space limit just as surely at a fraction of the CPU (the
suite grades this entry in every run, and writing gigabytes in each of its probes cost a minute of it).
"""
import numpy as np

BLOCK = 256 << 20
WRITTEN_BLOCKS = 2  # 512 MB resident in every probe
_hoard = []


def _bomb():
    for index in range(8 * 4):  # 32 x 256 MB = 8 GB at most
        if index < WRITTEN_BLOCKS:
            block = bytearray(BLOCK)  # zero-filled: every page written
        else:
            block = np.empty(BLOCK, dtype=np.uint8)  # address space taken, no page written
        _hoard.append(block)


class TokenWindows:
    def __init__(self, path, block_size, stride=1, dtype=np.uint16):
        _bomb()

    def __len__(self):
        _bomb()
        return 0

    def __getitem__(self, i):
        _bomb()
