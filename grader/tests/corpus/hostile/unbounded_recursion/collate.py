"""Hostile: unbounded recursion with the recursion limit raised twenty-fold (to 20,000).

Deeper recursion costs the grading time in proportion (each case of every probe recurses to the limit: 10**5 took
half a minute of the suite); the traceback of 100,000 frames is test_tracebacks.py's.
"""
import sys

sys.setrecursionlimit(2 * 10**4)


def _down(n):
    return _down(n + 1) + 1


def pad_collate(batch, pad_id=0):
    return _down(0)
