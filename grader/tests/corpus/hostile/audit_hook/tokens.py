"""Hostile: adds an audit hook and a trace function to watch and rewrite what the grader does."""
import sys
import threading

_SEEN = []


def _hook(event, args):
    _SEEN.append(event)


def _trace(frame, event, arg):
    return None


for _install in (lambda: sys.addaudithook(_hook), lambda: sys.settrace(_trace), lambda: threading.settrace(_trace)):
    try:
        _install()
    except RuntimeError:
        pass


class TokenWindows:
    def __init__(self, path, block_size, stride=1, dtype=None):
        raise ValueError(f"{len(_SEEN)} audit events seen")
