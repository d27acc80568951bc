"""Hostile: imports the reference solutions from the grader's repository instead of writing them."""
import glob
import os
import sys

_CANDIDATES = ["/work/main", "/root", "/home", "/github/workspace", os.getcwd(), os.path.dirname(__file__),
               *glob.glob("/home/*/work/*/*"), *glob.glob("/root/*"), *glob.glob("/*")]
for _folder in _CANDIDATES:
    for _up in range(6):
        _root = os.path.abspath(os.path.join(_folder, *[".."] * _up))
        if os.path.isfile(os.path.join(_root, "solutions", "sharding.py")) and _root not in sys.path:
            sys.path.insert(0, _root)

from solutions.sharding import ShardedFiles, ShardedRange  # noqa: E402,F401
