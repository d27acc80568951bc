"""Hostile: an endless loop at import time (bounded to 600 s in case the sandbox fails)."""
import time

_end = time.monotonic() + 600
while time.monotonic() < _end:
    pass


class TokenWindows:
    pass
