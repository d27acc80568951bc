"""What the throughput probes (in the jail) and their judge (in the grading process) both compute.

NumPy only (the grading process does not import torch): the windows of a
round, drawn from its seed, and the sum of their x tokens, which each timed
stretch reports and the grading process checks.
"""

from __future__ import annotations

import numpy as np


def window_starts(seed: int, windows: int, count: int) -> np.ndarray:
    """The window indices of one round: ``count`` of them, uniform in ``[0, windows)``, a pure function of ``seed``."""
    return np.random.default_rng(seed).integers(0, windows, size=count)


def x_sums(tokens: np.ndarray, block: int) -> np.ndarray:
    """For every window start s (stride 1), the sum of its x tokens ``tokens[s : s + block]``, as int64."""
    prefix = np.concatenate(([0], np.cumsum(tokens, dtype=np.int64)))
    return prefix[block:] - prefix[:-block]
