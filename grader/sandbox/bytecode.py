"""Bytecode for the environment the sandbox runs, compiled on the host: nothing inside the jail can write it.

The jail mounts the interpreter's environment read-only and every sandboxed
process runs with ``PYTHONDONTWRITEBYTECODE``. Where the installer left the
bytecode out (``bash .ci/setup`` does, so that the README's first command
stays short) and nothing wrote it since (a shell may set
``PYTHONDONTWRITEBYTECODE``), every sandbox, spawn worker and probe would
compile torch from source again: about 4 s per import of torch on a 2-core
machine, against 2 s.

:func:`ensure` compiles the environment's ``site-packages`` when a sandbox
starts and the modules it preloads have no bytecode (about 20 s on all
cores, once: files already compiled are skipped), under a lock so that
concurrent gradings compile it once. An environment pip installed with its
default compile step (every host's workflow and Gradescope's image) has the
bytecode, and costs one file lookup per module. An environment the grader
cannot write (the simulated container's read-only mount) is left as it is:
the grading is only slower. ``python -m grader.sandbox.bytecode`` does it
ahead of time (``.ci/run`` does, so that no test pays it).
"""

from __future__ import annotations

import fcntl
import importlib.util
import os
import subprocess
import sys
import sysconfig
from pathlib import Path

#: The modules whose bytecode says whether the environment was compiled: what every zygote preloads.
PRELOADED = ("torch", "numpy")


def _site_packages() -> Path:
    return Path(sysconfig.get_paths()["purelib"])


def missing(modules=PRELOADED) -> list[str]:
    """The installed ``modules`` that have no bytecode for this interpreter (found without importing them)."""
    absent = []
    for name in modules:
        spec = importlib.util.find_spec(name)
        if spec is not None and spec.origin and spec.origin.endswith(".py"):
            if not os.path.exists(importlib.util.cache_from_source(spec.origin)):
                absent.append(name)
    return absent


def ensure(say=None, modules=PRELOADED) -> bool:
    """Compile ``site-packages`` when :func:`missing` names one of ``modules`` and the grader may write there; True
    when this call compiled it. ``say`` (a callable taking one line) is told before the compile starts, since it
    takes seconds."""
    if not missing(modules) or not os.access(_site_packages(), os.W_OK):
        return False
    folder = os.open(_site_packages(), os.O_RDONLY | os.O_DIRECTORY)  # the lock: flock on the folder itself
    try:
        fcntl.flock(folder, fcntl.LOCK_EX)
        if not missing(modules):  # another grading compiled it while this one waited
            return False
        if say is not None:
            say("compiling the environment's bytecode once (about 20 s): the grader's jail cannot write it")
        # A few of torch's own test files are written for a newer Python and do not compile; pip's compile step skips
        # them the same way, so the exit status is not judged.
        subprocess.run([sys.executable, "-m", "compileall", "-q", "-j", "0", str(_site_packages())],
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=False)
    finally:
        os.close(folder)
    return True


if __name__ == "__main__":
    compiled = ensure(say=print)
    print(f"bytecode of {_site_packages()}: {'compiled now' if compiled else 'already there'}")
