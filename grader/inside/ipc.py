"""System V IPC objects and POSIX message queues a probe's uid left: found and removed after each probe.

The seccomp filter's "sandbox" policy refuses every System V IPC call and
every POSIX message-queue call (:data:`grader.inside.seccomp.IPC_CALLS`), so
where it holds (levels ``jail`` and ``contained``) no probe can make one.
This is the belt to those braces, for a zygote where the filter did not hold
(an unknown architecture, ``--layers off``, a kernel without seccomp): such
objects outlive every process of the probe, are shared by the whole IPC
namespace (without a jail, the machine's: the next grading's too) and hold
memory outside RLIMIT_AS and the write quota.

What is removed, after each probe (:func:`remove_objects_of`, called by
:func:`grader.inside.probe_life._clean_up`): every shared-memory segment,
semaphore set and message queue listed in ``/proc/sysvipc/{shm,sem,msg}``
whose owner or creator is the probes' own uid, and every queue in
``/dev/mqueue`` (where it is mounted) that uid owns. The removal runs in a
short-lived child of the zygote switched to that uid (the owner may always
remove its objects; the zygote holds no CAP_SYS_ADMIN), forked only when
something is left. Under the filter the zygote (and so that child) is refused
these calls too, which is why the filter's own refusal is the guarantee.

Limits, said where they apply:

* only with a uid of the probes' own: a probe that shares the zygote's uid
  (a grading not run as root) makes objects that cannot be told from the
  other processes' of that uid, and they stay (as its files in /tmp do). In
  a jail they end with the jail's IPC namespace, at the end of the grading.
* an object another uid made world-writable (0666) can be read and written
  by a probe without the filter, and is not the probe's to remove.
* a POSIX queue is found only through ``/dev/mqueue``: without that mount
  (the jail's minimal /dev, many containers) it cannot be listed, and stays.

Standard library only (ctypes), as everything inside the jail.
"""

from __future__ import annotations

import ctypes
import errno
import os

SYSVIPC = "/proc/sysvipc"
MQUEUE = "/dev/mqueue"
IPC_RMID = 0
#: The kinds of System V object: (the /proc/sysvipc file, the column holding its id).
KINDS = {"shm": "shmid", "sem": "semid", "msg": "msqid"}
_libc = ctypes.CDLL(None, use_errno=True)


def objects_of(uid: int) -> list[tuple[str, int]]:
    """(kind, id) of every System V object whose owner or creator is ``uid``, as /proc/sysvipc lists them."""
    found = []
    for kind, id_column in KINDS.items():
        try:
            with open(os.path.join(SYSVIPC, kind)) as table:
                header, *rows = (line.split() for line in table)
        except (OSError, ValueError):
            continue
        try:
            at = {name: header.index(name) for name in (id_column, "uid", "cuid")}
        except ValueError:
            continue
        for row in rows:
            try:
                if uid in (int(row[at["uid"]]), int(row[at["cuid"]])):
                    found.append((kind, int(row[at[id_column]])))
            except (IndexError, ValueError):
                continue
    return found


def queues_of(uid: int) -> list[str]:
    """Paths of the POSIX message queues in /dev/mqueue that ``uid`` owns ([] where it is not mounted)."""
    try:
        with os.scandir(MQUEUE) as listing:
            return [entry.path for entry in listing if _owner(entry) == uid]
    except OSError:
        return []


def _owner(entry: os.DirEntry) -> int | None:
    try:
        return entry.stat(follow_symlinks=False).st_uid
    except OSError:
        return None


def _remove(kind: str, ident: int) -> int:
    """IPC_RMID on one object: 0, or the errno."""
    if kind == "shm":
        result = _libc.shmctl(ctypes.c_int(ident), ctypes.c_int(IPC_RMID), ctypes.c_void_p(0))
    elif kind == "sem":
        result = _libc.semctl(ctypes.c_int(ident), ctypes.c_int(0), ctypes.c_int(IPC_RMID))
    else:
        result = _libc.msgctl(ctypes.c_int(ident), ctypes.c_int(IPC_RMID), ctypes.c_void_p(0))
    return ctypes.get_errno() if result == -1 else 0


def _remove_all(objects: list[tuple[str, int]], queues: list[str]) -> int:
    """Remove ``objects`` and ``queues`` (in the child, as their owner); how many could not be removed."""
    failed = 0
    for kind, ident in objects:
        err = _remove(kind, ident)
        failed += err not in (0, errno.EINVAL, errno.EIDRM)  # EINVAL/EIDRM: already gone
    for path in queues:
        try:
            os.unlink(path)
        except FileNotFoundError:
            pass
        except OSError:
            failed += 1
    return failed


def remove_objects_of(uid: int, gid: int | None = None) -> list[str]:
    """Remove every System V object and /dev/mqueue queue of ``uid`` (see the module docstring); what is left, in words.

    Nothing is forked when nothing is left (the common case: the filter refuses their creation). Otherwise a child
    of this process switches to ``uid`` (this process needs CAP_SETUID, or to be ``uid`` already), removes them and
    exits; its exit status is how many it could not remove.
    """
    objects, queues = objects_of(uid), queues_of(uid)
    if not objects and not queues:
        return []
    pid = os.fork()
    if pid == 0:
        try:
            if os.geteuid() != uid:
                os.setgroups([])
                os.setresgid(*(gid if gid is not None else os.getegid(),) * 3)
                os.setresuid(uid, uid, uid)
            os._exit(min(_remove_all(objects, queues), 100))
        except BaseException:  # noqa: BLE001
            os._exit(101)
    _pid, status = os.waitpid(pid, 0)
    left = [f"{kind} {ident}" for kind, ident in objects_of(uid)] + queues_of(uid)
    if left:
        code = os.waitstatus_to_exitcode(status)
        why = "could not switch to the probes' uid" if code == 101 else "IPC_RMID refused (the seccomp filter, or EPERM)"
        return [f"{what}: {why}" for what in left]
    return []
