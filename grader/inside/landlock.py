"""Landlock: a process restricts itself, and everything it later forks or executes, to listed paths.

A small ctypes layer over the kernel's three Landlock system calls, with the
kernel's constants (``include/uapi/linux/landlock.h``).  The numbers 444,
445 and 446 are the same on x86_64 (``syscall_64.tbl``, "common") and on
aarch64 (``asm-generic/unistd.h``): every architecture numbers the system
calls added since 424 alike.  Standard library only, so that code inside the
jail (the zygote) can use it.

Contract of :func:`restrict`:

* It handles every right the running kernel's ABI knows (:data:`FS_RIGHTS`,
  :data:`NET_RIGHTS`, :data:`SCOPES`): what no rule grants is denied (EACCES),
  whatever the uid and its capabilities, root included.
* ``read_exec`` paths may be read and executed, ``read_only`` paths read,
  ``read_write`` paths read, written, created, removed and renamed within,
  but **not executed** (a file the sandbox writes cannot be run).  A rule on
  a folder covers everything beneath it; a rule on anything else (``/dev/null``)
  carries only the rights a file can have (:data:`FILE_RIGHTS`).  Symbolic
  links are followed: ``/proc/self`` names the restricting process only, so
  grant ``/proc`` to let every descendant read its own ``/proc/self``: another
  process's ``environ``, ``mem``, ``maps``, ``fd/``... stay closed, because a
  process in a domain cannot ptrace (PTRACE_MODE_READ included) one outside it.
  Not against capabilities: measured on Linux 6.18, a process that holds
  CAP_PERFMON or CAP_SYS_ADMIN still reads ``environ``, ``maps`` and ``auxv``
  (not ``mem``) of any process.  Drop capabilities as well.
* ``deny_tcp`` (ABI 4+): TCP bind and connect are refused entirely (EACCES):
  no port rule is ever added.  UDP and other families are not Landlock's: see
  :mod:`grader.inside.seccomp`.
* ``scope`` (ABI 6+): signals, and connecting to abstract unix sockets, reach
  only processes of the same domain or one nested in it (EPERM otherwise).
* PR_SET_NO_NEW_PRIVS is set first; denials are kept out of the audit log
  (ABI 7), so that a hostile submission cannot flood it.
* Threads: Landlock restricts the calling thread.  With ABI 8 every thread is
  restricted (TSYNC).  Below it, a process with other threads is refused,
  unless ``allow_threads=True``, which restricts the calling thread and what it
  forks (the other threads stay outside: right for a zygote whose threads never
  run student code, wrong anywhere else).
* It never raises because Landlock is missing, disabled or refused: it
  returns a :class:`Status` with ``applied=False`` and the reason.  Paths that
  do not exist or cannot be opened are skipped (not granted) and listed.
"""

from __future__ import annotations

import ctypes
import dataclasses
import os
import stat
from dataclasses import dataclass

from grader.shared.kernel import SYS_CREATE_RULESET, landlock_probe
from grader.shared.kernel import syscall as _syscall

SYS_ADD_RULE, SYS_RESTRICT_SELF = 445, 446
RULE_PATH_BENEATH = 1
RESTRICT_SELF_LOG_SAME_EXEC_OFF = 1 << 0  # ABI 7
RESTRICT_SELF_TSYNC = 1 << 3  # ABI 8
PR_SET_NO_NEW_PRIVS = 38

#: name -> (bit, first ABI that has it)
FS_RIGHTS = {
    "EXECUTE": (1 << 0, 1), "WRITE_FILE": (1 << 1, 1), "READ_FILE": (1 << 2, 1), "READ_DIR": (1 << 3, 1),
    "REMOVE_DIR": (1 << 4, 1), "REMOVE_FILE": (1 << 5, 1), "MAKE_CHAR": (1 << 6, 1), "MAKE_DIR": (1 << 7, 1),
    "MAKE_REG": (1 << 8, 1), "MAKE_SOCK": (1 << 9, 1), "MAKE_FIFO": (1 << 10, 1), "MAKE_BLOCK": (1 << 11, 1),
    "MAKE_SYM": (1 << 12, 1), "REFER": (1 << 13, 2), "TRUNCATE": (1 << 14, 3), "IOCTL_DEV": (1 << 15, 5),
}
NET_RIGHTS = {"BIND_TCP": (1 << 0, 4), "CONNECT_TCP": (1 << 1, 4)}
SCOPES = {"ABSTRACT_UNIX_SOCKET": (1 << 0, 6), "SIGNAL": (1 << 1, 6)}


def _bits(table: dict[str, tuple[int, int]], *names: str) -> int:
    return sum(table[name][0] for name in names)


#: The only rights a rule on something that is not a folder may carry (the kernel says EINVAL otherwise).
FILE_RIGHTS = _bits(FS_RIGHTS, "EXECUTE", "WRITE_FILE", "READ_FILE", "TRUNCATE", "IOCTL_DEV")
READ_ONLY = _bits(FS_RIGHTS, "READ_FILE", "READ_DIR")
READ_EXEC = READ_ONLY | _bits(FS_RIGHTS, "EXECUTE")
READ_WRITE = _bits(FS_RIGHTS, *FS_RIGHTS) & ~_bits(FS_RIGHTS, "EXECUTE")


class _RulesetAttr(ctypes.Structure):
    _fields_ = [("handled_access_fs", ctypes.c_uint64), ("handled_access_net", ctypes.c_uint64), ("scoped", ctypes.c_uint64)]


class _PathBeneath(ctypes.Structure):
    _pack_ = 1  # the kernel's struct is packed: 12 bytes
    _fields_ = [("allowed_access", ctypes.c_uint64), ("parent_fd", ctypes.c_int32)]


@dataclass(frozen=True)
class Status:
    """What :func:`restrict` did: the ABI, whether the domain holds, and which rights it handles."""

    abi: int
    applied: bool
    reason: str
    fs_rights: tuple[str, ...] = ()
    net: bool = False
    scopes: tuple[str, ...] = ()
    skipped_paths: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """Plain JSON-ready data."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}


_libc = ctypes.CDLL(None, use_errno=True)


def abi() -> int:
    """The running kernel's Landlock ABI version; 0 when Landlock is unavailable or disabled. Never raises."""
    return landlock_probe()[0]


def _names(table: dict[str, tuple[int, int]], version: int) -> tuple[str, ...]:
    return tuple(name for name, (_bit, since) in table.items() if since <= version)


def _threads() -> int:
    try:
        return len(os.listdir("/proc/self/task"))
    except OSError:
        import threading
        return threading.active_count()


def _add_path(ruleset: int, path: str, rights: int) -> str | None:
    """Add one path-beneath rule; returns why the path was skipped, or None."""
    try:
        fd = os.open(path, os.O_PATH | os.O_CLOEXEC)
    except OSError as exc:
        return f"{path} ({exc.strerror})"
    try:
        if not stat.S_ISDIR(os.fstat(fd).st_mode):
            rights &= FILE_RIGHTS
        rule = _PathBeneath(allowed_access=rights, parent_fd=fd)
        result = _syscall(SYS_ADD_RULE, ruleset, RULE_PATH_BENEATH, ctypes.byref(rule), 0)
        return None if result == 0 else f"{path} (landlock_add_rule: {os.strerror(-result)})"
    finally:
        os.close(fd)


def restrict(read_exec=(), read_only=(), read_write=(), *, deny_tcp: bool = True, scope: bool = True,
             allow_threads: bool = False) -> Status:
    """Put this process (see the module docstring for threads) in a new Landlock domain; see the module contract."""
    version, why = landlock_probe()
    if version == 0:
        return Status(abi=0, applied=False, reason=why)
    fs_names = _names(FS_RIGHTS, version)
    net_names = _names(NET_RIGHTS, version) if deny_tcp else ()
    scope_names = _names(SCOPES, version) if scope else ()
    handled = _bits(FS_RIGHTS, *fs_names)
    status = dict(abi=version, fs_rights=fs_names, net=bool(net_names), scopes=scope_names)
    flags = RESTRICT_SELF_LOG_SAME_EXEC_OFF if version >= 7 else 0
    if version >= 8:
        flags |= RESTRICT_SELF_TSYNC
    elif _threads() > 1 and not allow_threads:
        return Status(applied=False, reason=f"{_threads()} threads, and Landlock ABI {version} restricts only the calling one "
                      "(restrict before starting threads, or pass allow_threads=True)", **status)
    attr = _RulesetAttr(handled, _bits(NET_RIGHTS, *net_names), _bits(SCOPES, *scope_names))
    size = 8 if version < 4 else 16 if version < 6 else 24  # the struct as this ABI knows it
    ruleset = _syscall(SYS_CREATE_RULESET, ctypes.byref(attr), size, 0)
    if ruleset < 0:
        return Status(applied=False, reason=f"landlock_create_ruleset: {os.strerror(-ruleset)}", **status)
    try:
        skipped = tuple(s for paths, rights in ((read_exec, READ_EXEC), (read_only, READ_ONLY), (read_write, READ_WRITE))
                        for p in paths if (s := _add_path(ruleset, os.fspath(p), rights & handled)))
        if _libc.prctl(PR_SET_NO_NEW_PRIVS, ctypes.c_ulong(1), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0)) != 0:
            return Status(applied=False, reason=f"PR_SET_NO_NEW_PRIVS: {os.strerror(ctypes.get_errno())}", skipped_paths=skipped, **status)
        result = _syscall(SYS_RESTRICT_SELF, ruleset, flags)
    finally:
        os.close(ruleset)
    if result != 0:
        return Status(applied=False, reason=f"landlock_restrict_self: {os.strerror(-result)}", skipped_paths=skipped, **status)
    return Status(applied=True, reason=f"Landlock ABI {version}", skipped_paths=skipped, **status)
