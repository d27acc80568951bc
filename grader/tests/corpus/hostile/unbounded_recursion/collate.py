"""Hostile: unbounded recursion with the recursion limit raised to 10**5."""
import sys

sys.setrecursionlimit(10**5)


def _down(n):
    return _down(n + 1) + 1


def pad_collate(batch, pad_id=0):
    return _down(0)
