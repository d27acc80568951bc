"""What a test run makes once and every pytest-xdist worker reuses: a folder per run, and results made under a lock.

The run's folder is the same for all the workers of one pytest session
(``PYTEST_XDIST_TESTRUNUID``). :func:`once` makes a JSON-able result in it
the first time any worker asks, while the others wait on its file lock, and
hands the same JSON back to every later caller: the graded class of 30
(grader/tests/conftest.py), the reference's seed run of each exercise
(grader/tests/seed_invariance.py).
"""

from __future__ import annotations

import fcntl
import json
import os
import shutil
import tempfile
import time
from pathlib import Path
from typing import Callable


def run_folder() -> Path:
    """This test run's folder: one per pytest session, the same for all its xdist workers."""
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID") or f"pid{os.getpid()}"
    base = Path(tempfile.gettempdir()) / "grader-test-runs"
    base.mkdir(mode=0o755, exist_ok=True)
    folder = base / run
    if not folder.exists():
        folder.mkdir()
        for old in base.iterdir():  # runs of earlier sessions
            if old != folder and old.is_dir() and time.time() - old.stat().st_mtime > 6 * 3600:
                shutil.rmtree(old, ignore_errors=True)
    return folder


def once(name: str, make: Callable[[Path], dict]) -> dict:
    """``make(folder)``'s JSON-able result, made once per test run under a file lock; later callers get it back.

    A ``make`` that raised leaves nothing behind: the next caller tries again.
    """
    folder = run_folder() / name
    with open(run_folder() / f"{name}.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        done = folder / "done.json"
        if done.is_file():
            return json.loads(done.read_text())
        shutil.rmtree(folder, ignore_errors=True)
        folder.mkdir()
        done.write_text(json.dumps(make(folder)))
        # Read back even by the caller that made it: every caller sees the same JSON types
        # (a dict's int keys would otherwise be ints here and strings in the other workers).
        return json.loads(done.read_text())
