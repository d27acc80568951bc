"""Probe functions used by test_ipc.py; they run inside sandbox children (the pattern of sandbox_probes.py).

Each makes System V IPC objects and a POSIX message queue through ctypes on
libc, as a submission could, and says what the kernel (or the seccomp filter)
answered. Standard library only: the sandboxes that run them preload nothing.
"""

from __future__ import annotations

import ctypes
import errno
import os

IPC_CREAT, IPC_RMID = 0o1000, 0
_libc = ctypes.CDLL(None, use_errno=True)
_libc.shmat.restype = ctypes.c_void_p
_libc.shmat.argtypes = [ctypes.c_int, ctypes.c_void_p, ctypes.c_int]
_libc.shmdt.argtypes = [ctypes.c_void_p]
_libc.shmget.argtypes = [ctypes.c_int, ctypes.c_size_t, ctypes.c_int]
_libc.mq_open.argtypes = [ctypes.c_char_p, ctypes.c_int, ctypes.c_uint, ctypes.c_void_p]
BAD_ADDRESS = ctypes.c_void_p(-1).value


def _errno() -> str:
    return errno.errorcode.get(ctypes.get_errno(), str(ctypes.get_errno()))


def shm_counter(key: int) -> dict:
    """Increment a counter in the 0666 segment ``key`` (made if missing): the value it saw, 1 where shmget is refused
    (it counts only its own probe), and the errno of the call that failed (None: none failed)."""
    shmid = _libc.shmget(key, 4096, IPC_CREAT | 0o666)
    if shmid == -1:
        return {"counter": 1, "errno": _errno()}
    address = _libc.shmat(shmid, None, 0)
    if address in (None, BAD_ADDRESS):
        return {"counter": 1, "errno": _errno()}
    cell = ctypes.c_uint32.from_address(address)
    cell.value += 1
    seen = cell.value
    _libc.shmdt(address)
    return {"counter": seen, "errno": None}


def other_ipc(key: int, queue: str) -> dict:
    """msgget, semget (key ``key``, created 0666) and mq_open (``queue``, created 0666): "ok" or the errno of each.
    A queue that opened is closed, not unlinked: what is left is the grader's to remove."""
    answers = {}
    for name, make in (("msgget", lambda: _libc.msgget(key, IPC_CREAT | 0o666)),
                       ("semget", lambda: _libc.semget(key, 1, IPC_CREAT | 0o666))):
        answers[name] = _errno() if make() == -1 else "ok"
    descriptor = _libc.mq_open(queue.encode(), os.O_CREAT | os.O_RDWR, 0o666, None)
    if descriptor == -1:
        answers["mq_open"] = _errno()
    else:
        answers["mq_open"] = "ok"
        _libc.mq_close(descriptor)
    return answers


def leftovers() -> dict:
    """Every System V object this probe's IPC namespace holds, as /proc/sysvipc lists them: {kind: [(key, uid)]}."""
    found = {}
    for kind in ("shm", "sem", "msg"):
        with open(f"/proc/sysvipc/{kind}") as table:
            header, *rows = (line.split() for line in table)
        found[kind] = [(int(row[header.index("key")]), int(row[header.index("uid")])) for row in rows]
    return found
