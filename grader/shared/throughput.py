"""What the throughput probes (in the jail) and their judge (in the grading process) both compute.

NumPy only (the grading process does not import torch): the windows of a
stretch, drawn from its start mark's answer (the zygote's, see
:mod:`grader.inside.probe_wait`) and chained batch by batch, and the sum of
their x tokens, which each timed stretch reports and the grading process
checks.
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


def next_offset(x_sum: int, windows: int) -> int:
    """How far the next batch's windows are shifted, from the sum of the x tokens of the batch just read: batch k + 1
    of a stretch is ``(base + offset) % windows`` over its slice of the base starts, so no batch's windows are known
    before the batch before it has been read."""
    return x_sum % windows


def chained_total(base: np.ndarray, sums: np.ndarray, count: int, batch: int, windows: int) -> int:
    """The sum of the x tokens of the first ``count`` windows of a stretch over ``base`` (see :func:`next_offset`)."""
    total = offset = 0
    for first in range(0, count, batch):
        x_sum = int(sums[(base[first:min(first + batch, count)] + offset) % windows].sum())
        total, offset = total + x_sum, next_offset(x_sum, windows)
    return total
