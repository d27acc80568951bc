"""A seccomp-BPF filter, assembled here, that refuses the system calls a sandbox has no use for.

Standard library only (ctypes; no libseccomp), so that code inside the jail
can use it.  The filter is a list of classic BPF instructions
(``struct sock_filter``) over ``struct seccomp_data``, installed with
``seccomp(SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC)`` (every thread
of the process), or ``prctl(PR_SET_SECCOMP)`` where seccomp() is missing.
A filter cannot be removed: it holds for the process, every thread, and
everything forked or executed from it.

Contract of the filter:

* First the architecture: ``seccomp_data.arch`` must be the one the filter
  was built for (AUDIT_ARCH_X86_64 or AUDIT_ARCH_AARCH64), else the process is
  killed (SIGSYS): a 32-bit ``int 0x80`` call cannot dodge the table.  On
  x86_64 the x32 range (``nr >= 0x40000000``) is refused (EPERM).
* Then the policy's rules (:data:`POLICIES`); every other call is allowed.
  Arguments are compared on their low 32 bits, which is all the kernel reads
  of a socket family or of clone's flags.
* ``"sandbox"`` (processes that run student code): sockets and socket pairs
  of every family but AF_UNIX (UDP, raw, packet, netlink...), every io_uring
  call (it can open sockets without socket()), ptrace, process_vm_readv/writev,
  kexec, bpf, perf_event_open, the key-ring calls, mount, umount2, pivot_root
  and the new mount API, unshare, setns, clone with any CLONE_NEW* flag, every
  System V IPC call (shmget, shmat, shmctl, shmdt, semget, semop, semtimedop,
  semctl, msgget, msgsnd, msgrcv, msgctl) and every POSIX message-queue call
  (mq_open, mq_unlink, mq_timedsend, mq_timedreceive, mq_notify,
  mq_getsetattr; :data:`IPC_CALLS`): EPERM; clone3: ENOSYS (its flags live in
  memory a filter cannot read; glibc then falls back to clone, as under
  Docker).  Installing it sets no_new_privs first.  IPC objects outlive their
  process and are shared by the whole IPC namespace (without a jail, the
  machine's: the next grading's too), outside RLIMIT_AS and the write quota;
  POSIX shared memory and named semaphores (shm_open, sem_open: files in
  /dev/shm, which DataLoader workers use) stay allowed, under Landlock and
  the quota.  The zygote is under the filter too, so it cannot remove an IPC
  object either: the probe's clean-up (:mod:`grader.inside.ipc`) removes
  leftovers only where the filter did not hold.
* ``"docker"`` (the suite's simulation of Gradescope's container): only the
  namespace rules of Docker's default profile for a container without
  CAP_SYS_ADMIN: unshare, setns, mount, umount2, pivot_root and clone with
  CLONE_NEW* flags EPERM, clone3 ENOSYS; sockets and Landlock stay allowed.
  It does **not** set no_new_privs (Docker does not): install it while the
  process still holds CAP_SYS_ADMIN, or the kernel refuses (EACCES).

:func:`install` never raises because seccomp is unavailable or the
architecture unknown: it returns a :class:`Status` with ``applied=False``.
"""

from __future__ import annotations

import ctypes
import dataclasses
import errno
import os
import platform
import struct
import sys
from dataclasses import dataclass

AUDIT_ARCH = {"x86_64": 0xC000003E, "aarch64": 0xC00000B7}
X32_SYSCALL_BIT = 0x40000000
CLONE_NEW_FLAGS = 0x7E020000  # NS|CGROUP|UTS|IPC|USER|PID|NET: Docker's mask 2114060288
AF_UNIX = 1
SECCOMP_RET_KILL_PROCESS, SECCOMP_RET_ERRNO, SECCOMP_RET_ALLOW = 0x80000000, 0x00050000, 0x7FFF0000
SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC = 1, 1
PR_SET_NO_NEW_PRIVS, PR_SET_SECCOMP, SECCOMP_MODE_FILTER = 38, 22, 2
_LD_W_ABS, _JEQ_K, _JGE_K, _JSET_K, _RET_K = 0x20, 0x15, 0x35, 0x45, 0x06
_NR, _ARCH, _ARG0 = 0, 4, 16  # offsets in struct seccomp_data (little-endian: low 32 bits of args[0])

_GENERIC = {"io_uring_setup": 425, "io_uring_enter": 426, "io_uring_register": 427, "open_tree": 428, "move_mount": 429,
            "fsopen": 430, "fsconfig": 431, "fsmount": 432, "fspick": 433, "clone3": 435, "mount_setattr": 442,
            "open_tree_attr": 467}
#: The numbers each architecture gives the calls the policies name (x86_64: syscall_64.tbl; aarch64: asm-generic).
SYSCALLS = {
    "x86_64": {"socket": 41, "socketpair": 53, "clone": 56, "ptrace": 101, "pivot_root": 155, "mount": 165, "umount2": 166,
               "kexec_load": 246, "add_key": 248, "request_key": 249, "keyctl": 250, "unshare": 272, "perf_event_open": 298,
               "setns": 308, "process_vm_readv": 310, "process_vm_writev": 311, "seccomp": 317, "kexec_file_load": 320,
               "bpf": 321, "shmget": 29, "shmat": 30, "shmctl": 31, "semget": 64, "semop": 65, "semctl": 66, "shmdt": 67,
               "msgget": 68, "msgsnd": 69, "msgrcv": 70, "msgctl": 71, "semtimedop": 220, "mq_open": 240, "mq_unlink": 241,
               "mq_timedsend": 242, "mq_timedreceive": 243, "mq_notify": 244, "mq_getsetattr": 245, **_GENERIC},
    "aarch64": {"umount2": 39, "mount": 40, "pivot_root": 41, "unshare": 97, "kexec_load": 104, "ptrace": 117, "socket": 198,
                "socketpair": 199, "add_key": 217, "request_key": 218, "keyctl": 219, "clone": 220, "perf_event_open": 241,
                "setns": 268, "process_vm_readv": 270, "process_vm_writev": 271, "seccomp": 277, "bpf": 280,
                "kexec_file_load": 294, "mq_open": 180, "mq_unlink": 181, "mq_timedsend": 182, "mq_timedreceive": 183,
                "mq_notify": 184, "mq_getsetattr": 185, "msgget": 186, "msgctl": 187, "msgrcv": 188, "msgsnd": 189, "semget": 190,
                "semctl": 191, "semtimedop": 192, "semop": 193, "shmget": 194, "shmctl": 195, "shmat": 196, "shmdt": 197,
                **_GENERIC},
}

#: System V IPC (shared memory, semaphores, message queues) and POSIX message queues: objects that outlive the
#: process that made them, shared by every process of an IPC namespace (the machine's, without a jail), held outside
#: RLIMIT_AS and the write quota. DataLoader workers need none of them (POSIX shm and sem_open are files in /dev/shm).
IPC_CALLS = ("shmget", "shmat", "shmctl", "shmdt", "semget", "semop", "semtimedop", "semctl", "msgget", "msgsnd", "msgrcv",
             "msgctl", "mq_open", "mq_unlink", "mq_timedsend", "mq_timedreceive", "mq_notify", "mq_getsetattr")

# A rule: (syscall, condition, errno); condition "always", "arg0!=AF_UNIX" or "arg0&CLONE_NEW".
_NAMESPACES = [(name, "always", errno.EPERM) for name in ("unshare", "setns", "mount", "umount2", "pivot_root")] + [
    ("clone", "arg0&CLONE_NEW", errno.EPERM), ("clone3", "always", errno.ENOSYS)]
POLICIES = {
    "docker": _NAMESPACES,
    "sandbox": [("socket", "arg0!=AF_UNIX", errno.EPERM), ("socketpair", "arg0!=AF_UNIX", errno.EPERM)] + [
        (name, "always", errno.EPERM) for name in (
            "io_uring_setup", "io_uring_enter", "io_uring_register", "ptrace", "process_vm_readv", "process_vm_writev",
            "kexec_load", "kexec_file_load", "bpf", "perf_event_open", "keyctl", "add_key", "request_key", "open_tree",
            "move_mount", "fsopen", "fsconfig", "fsmount", "fspick", "mount_setattr", "open_tree_attr", *IPC_CALLS)] + _NAMESPACES,
}


@dataclass(frozen=True)
class Status:
    """What :func:`install` did: the policy, the architecture, and what the filter refuses."""

    policy: str
    arch: str
    applied: bool
    reason: str
    rules: tuple[str, ...] = ()

    def to_dict(self) -> dict:
        """Plain JSON-ready data."""
        return {k: list(v) if isinstance(v, tuple) else v for k, v in dataclasses.asdict(self).items()}


def rule_names(policy: str) -> tuple[str, ...]:
    """Short names of what ``policy`` refuses, e.g. ``"socket(family != AF_UNIX): EPERM"``."""
    shown = {"always": "", "arg0!=AF_UNIX": "(family != AF_UNIX)", "arg0&CLONE_NEW": "(CLONE_NEW*)"}
    return tuple(f"{name}{shown[cond]}: {errno.errorcode[err]}" for name, cond, err in POLICIES[policy])


def _insn(code: int, k: int, jt: int = 0, jf: int = 0) -> bytes:
    return struct.pack("=HBBI", code, jt, jf, k)


def program(policy: str, arch: str) -> bytes:
    """The filter's instructions (``struct sock_filter[]``) for ``policy`` on ``arch``; KeyError for an unknown one."""
    numbers, refuse = SYSCALLS[arch], lambda err: _insn(_RET_K, SECCOMP_RET_ERRNO | err)
    out = [_insn(_LD_W_ABS, _ARCH), _insn(_JEQ_K, AUDIT_ARCH[arch], 1, 0), _insn(_RET_K, SECCOMP_RET_KILL_PROCESS),
           _insn(_LD_W_ABS, _NR)]
    if arch == "x86_64":
        out += [_insn(_JGE_K, X32_SYSCALL_BIT, 0, 1), refuse(errno.EPERM)]
    for name, cond, err in POLICIES[policy]:
        if cond == "always":
            out += [_insn(_JEQ_K, numbers[name], 0, 1), refuse(err)]
            continue
        test = _insn(_JEQ_K, AF_UNIX, 1, 0) if cond == "arg0!=AF_UNIX" else _insn(_JSET_K, CLONE_NEW_FLAGS, 0, 1)
        # nr matches: load arg0, test it, refuse or allow; nr differs: jump over these four.
        out += [_insn(_JEQ_K, numbers[name], 0, 4), _insn(_LD_W_ABS, _ARG0), test, refuse(err),
                _insn(_RET_K, SECCOMP_RET_ALLOW)]
    return b"".join([*out, _insn(_RET_K, SECCOMP_RET_ALLOW)])


class _SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


_libc = ctypes.CDLL(None, use_errno=True)


def _prctl(option: int, arg: int) -> int:
    """prctl(2) with one number: 0, or ``-errno``."""
    result = _libc.prctl(option, ctypes.c_ulong(arg), ctypes.c_ulong(0), ctypes.c_ulong(0), ctypes.c_ulong(0))
    return -ctypes.get_errno() if result != 0 else 0


def _load(arch: str, code: bytes) -> str | None:
    """Install the filter on every thread; None, or why not."""
    buffer = ctypes.create_string_buffer(code, len(code))
    prog = _SockFprog(len(code) // 8, ctypes.addressof(buffer))
    nr = SYSCALLS[arch]["seccomp"]
    result = _libc.syscall(ctypes.c_long(nr), ctypes.c_uint(SECCOMP_SET_MODE_FILTER), ctypes.c_uint(SECCOMP_FILTER_FLAG_TSYNC),
                           ctypes.byref(prog))
    err = ctypes.get_errno() if result == -1 else 0
    if result > 0:
        return f"thread {result} cannot take the filter (TSYNC)"
    if err == errno.ENOSYS:  # no seccomp(): the old interface, calling thread only
        err = -_prctl_filter(prog)
    if err == errno.EACCES:
        return "needs no_new_privs or CAP_SYS_ADMIN (EACCES)"
    return f"seccomp: {os.strerror(err)}" if err else None


def _prctl_filter(prog: _SockFprog) -> int:
    """The old interface (before Linux 3.17): the calling thread only."""
    result = _libc.prctl(PR_SET_SECCOMP, ctypes.c_ulong(SECCOMP_MODE_FILTER), ctypes.byref(prog), ctypes.c_ulong(0), ctypes.c_ulong(0))
    return -ctypes.get_errno() if result != 0 else 0


def install(policy: str) -> Status:
    """Install ``policy`` ("sandbox" or "docker") on this process; see the module contract. ValueError for another name."""
    if policy not in POLICIES:
        raise ValueError(f"unknown seccomp policy {policy!r}; known: {', '.join(POLICIES)}")
    arch, rules = platform.machine(), rule_names(policy)
    if not sys.platform.startswith("linux"):
        return Status(policy, arch, False, f"seccomp needs Linux; this is {sys.platform}")
    if arch not in SYSCALLS:
        return Status(policy, arch, False, f"no system call table for architecture {arch!r} (known: {', '.join(SYSCALLS)})")
    if policy == "sandbox" and (err := _prctl(PR_SET_NO_NEW_PRIVS, 1)):
        return Status(policy, arch, False, f"PR_SET_NO_NEW_PRIVS: {os.strerror(-err)}")
    try:
        why = _load(arch, program(policy, arch))
    except (OSError, AttributeError) as exc:
        why = f"seccomp could not be called: {exc}"
    if why:
        return Status(policy, arch, False, why)
    return Status(policy, arch, True, f"seccomp filter for {arch}, {len(rules)} rules", rules)
