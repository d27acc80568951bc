"""Hostile: pad_collate never returns (busy loop, bounded to 600 s wall in case the sandbox fails)."""
import time


def pad_collate(batch, pad_id=0):
    end = time.monotonic() + 600
    while time.monotonic() < end:
        pass
    raise RuntimeError("gave up looping")
