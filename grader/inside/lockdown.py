"""Lock down a process that runs student code: limits, environment, identity.

Used by the zygote on each probe child right after fork, and on the shared
forkserver (whose workers run student code too). Everything here is one
way: after :func:`become_probe_user` the process keeps no capability,
cannot regain privileges (no_new_privs), cannot be ptraced by its own uid,
and dies with the zygote.
"""

from __future__ import annotations

import ctypes
import os
import resource
import signal
import tempfile

from grader.shared.messages import ZygoteConfig

PR_SET_PDEATHSIG, PR_SET_DUMPABLE, PR_CAPBSET_READ, PR_CAPBSET_DROP = 1, 4, 23, 24
PR_SET_CHILD_SUBREAPER, PR_SET_NO_NEW_PRIVS = 36, 38
_libc = ctypes.CDLL(None, use_errno=True)


def prctl(option: int, value: int) -> None:
    if _libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"prctl({option}): {os.strerror(err)}")


def clear_capabilities() -> None:
    """Empty every capability set left (the inheritable set survives a uid switch)."""
    header = (ctypes.c_uint32 * 2)(0x20080522, 0)  # _LINUX_CAPABILITY_VERSION_3, this process
    data = (ctypes.c_uint32 * 6)()
    if _libc.capset(header, data) != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"capset: {os.strerror(err)}")


def drop_bounding_set() -> None:
    """Drop every capability from the bounding set (needs CAP_SETPCAP; those already gone are skipped)."""
    cap = 0
    while _libc.prctl(PR_CAPBSET_READ, ctypes.c_ulong(cap), 0, 0, 0) >= 0:
        _libc.prctl(PR_CAPBSET_DROP, ctypes.c_ulong(cap), 0, 0, 0)
        cap += 1


def set_limit(which: int, soft: int, hard: int | None = None) -> None:
    hard = soft if hard is None else hard
    _cur_soft, cur_hard = resource.getrlimit(which)
    if cur_hard != resource.RLIM_INFINITY:
        soft, hard = min(soft, cur_hard), min(hard, cur_hard)
    resource.setrlimit(which, (soft, hard))


def cpu_seconds(cfg: ZygoteConfig, timeout: float) -> int:
    return cfg.limits.cpu_seconds or int(timeout) + 5


def apply_limits(cfg: ZygoteConfig, cpu: int) -> None:
    mib, limits = 1 << 20, cfg.limits
    set_limit(resource.RLIMIT_CORE, 0)
    set_limit(resource.RLIMIT_AS, limits.memory_mb * mib)
    set_limit(resource.RLIMIT_FSIZE, limits.file_size_mb * mib)
    set_limit(resource.RLIMIT_NOFILE, 1024)
    set_limit(resource.RLIMIT_NPROC, limits.max_processes)
    set_limit(resource.RLIMIT_CPU, cpu, cpu + 2)  # SIGXCPU first, SIGKILL 2 s later


def become_probe_user(cfg: ZygoteConfig, home: str, cpu_limit: int) -> None:
    """Limits, environment and identity of a process that runs student code (probe child or forkserver).

    Dies at once if the zygote is gone. Keeps no capability and sets
    no_new_privs, so no program it runs can regain privileges.
    """
    zygote = os.getppid()
    prctl(PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != zygote:  # the zygote died before PDEATHSIG was armed
        os._exit(1)
    try:
        with open("/proc/self/oom_score_adj", "w") as fh:
            fh.write("1000")  # if the machine runs out of memory, kill us first
    except OSError:
        pass
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # over-long writes fail with EFBIG
    apply_limits(cfg, cpu_limit)
    os.environ.clear()
    os.environ.update(cfg.env, HOME=home, TMPDIR=home)
    tempfile.tempdir = None
    if cfg.uid is not None:
        os.chown(home, cfg.uid, cfg.gid)
        os.setgroups([])
        os.setresgid(cfg.gid, cfg.gid, cfg.gid)
        os.setresuid(cfg.uid, cfg.uid, cfg.uid)  # clears the permitted, effective and ambient sets
        clear_capabilities()
        prctl(PR_SET_PDEATHSIG, signal.SIGKILL)  # a credential change clears it
        if os.getppid() != zygote:
            os._exit(1)
    elif os.geteuid() == 0:
        drop_bounding_set()  # root without a uid of its own keeps no capability: none survives an exec either
        clear_capabilities()
    prctl(PR_SET_NO_NEW_PRIVS, 1)  # setuid programs cannot regain privileges
    prctl(PR_SET_DUMPABLE, 0)  # same-uid processes may not ptrace it or read its memory
