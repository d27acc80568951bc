"""What the running kernel offers the sandbox's layers, asked without applying any.

Both sides ask: the host, to say before it starts a sandbox which isolation
level a grading will get (:func:`grader.sandbox.expected.expected_isolation`);
the zygote, inside the jail, before it applies the layers
(:mod:`grader.inside.landlock`, :mod:`grader.inside.seccomp`). Standard
library only; never raises.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import sys

#: landlock_create_ruleset: 444 on every architecture (system calls added since 424 are numbered alike).
SYS_CREATE_RULESET = 444
CREATE_RULESET_VERSION = 1 << 0
#: The machines :mod:`grader.inside.seccomp` has a system-call table for.
SECCOMP_MACHINES = ("x86_64", "aarch64")

try:
    _libc = ctypes.CDLL(None, use_errno=True)
except OSError:  # not a POSIX C library (Windows): no layer here
    _libc = None


def syscall(*args) -> int:
    """``syscall(2)``: the result, or ``-errno``."""
    result = _libc.syscall(*(ctypes.c_long(a) if isinstance(a, int) else a for a in args))
    return -ctypes.get_errno() if result == -1 else result


def landlock_probe() -> tuple[int, str]:
    """The kernel's Landlock ABI version (0: none) and, when 0, why."""
    if not sys.platform.startswith("linux") or _libc is None:
        return 0, f"Landlock needs Linux; this is {sys.platform}"
    try:
        version = syscall(SYS_CREATE_RULESET, None, 0, CREATE_RULESET_VERSION)
    except (OSError, AttributeError) as exc:
        return 0, f"landlock_create_ruleset could not be called: {exc}"
    if version > 0:
        return version, ""
    why = {-errno.ENOSYS: "this kernel has no Landlock (Linux 5.13+ built with CONFIG_SECURITY_LANDLOCK)",
           -errno.EOPNOTSUPP: "Landlock is built in but disabled at boot (add landlock to the lsm= list)",
           -errno.EPERM: "the Landlock system calls are refused here (a seccomp filter, e.g. an old container profile)"}
    return 0, why.get(version, f"landlock_create_ruleset failed: {os.strerror(-version)}")


def seccomp_filter_here() -> bool:
    """Whether :mod:`grader.inside.seccomp` has a filter for this machine."""
    return sys.platform.startswith("linux") and platform.machine() in SECCOMP_MACHINES
