"""How much a probe has written: the size and number of entries of its scratch folders and its /dev/shm files.

Inside a jail, ``/tmp``, ``/dev/shm`` and the scratch folders are size-capped
memory file systems of the jail's own. Without namespaces they are the
machine's, so the zygote measures them while a probe runs
(:func:`written_bytes`) and kills the probe over its quota, before it can
fill the disk or the memory of a small container and lose the results. The
number of entries is bounded everywhere, the jail included (see
:data:`MAX_ENTRIES`). Runs inside the zygote; standard library only.
"""

from __future__ import annotations

import os
import stat

SHM = "/dev/shm"
#: A probe that makes more files and folders than this is over its quota whatever their size: an honest
#: probe makes a few dozen (DataLoader workers' sockets and temp folders), and every file system operation in
#: a chain thousands of folders deep costs time in proportion to its depth (measured: a 3,000-deep chain made
#: in each probe took a grading from 24 s to 80 s in the jail, to 236 s on disk under Landlock).
MAX_ENTRIES = 2_000
#: The most folders the walk keeps open at once (each a file descriptor).
MAX_OPEN = 256


def written_bytes(folders: list[str], *, shm_uid: int | None, shm_since: float) -> tuple[int, int]:
    """(bytes on disk, entries) below ``folders``, plus the probe's files in /dev/shm.

    The probe's /dev/shm files are those owned by ``shm_uid`` (its own uid),
    or, when it shares the zygote's uid (``shm_uid`` None), those of this uid
    changed since ``shm_since`` (a ``time.time()``). Links are never
    followed; folders are walked through file descriptors, so a chain
    thousands of folders deep costs as much as a flat folder; the walk stops
    after :data:`MAX_ENTRIES` entries or :data:`MAX_OPEN` pending folders
    (then the entries count is over :data:`MAX_ENTRIES`).
    """
    used = entries = 0
    for folder in folders:
        size, count = _tree_bytes(folder)
        used, entries = used + size, entries + count
    return used + _shm_bytes(shm_uid, shm_since), entries


def _tree_bytes(top: str) -> tuple[int, int]:
    try:
        pending = [os.open(top, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)]
    except OSError:
        return 0, 0
    used = entries = 0
    try:
        while pending:
            if entries > MAX_ENTRIES or len(pending) > MAX_OPEN:
                return used, MAX_ENTRIES + 1
            fd = pending.pop()
            try:
                for name in os.listdir(fd):
                    entries += 1
                    try:
                        info = os.stat(name, dir_fd=fd, follow_symlinks=False)
                        used += info.st_blocks * 512
                        if stat.S_ISDIR(info.st_mode):
                            pending.append(os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=fd))
                    except OSError:
                        continue
            except OSError:
                pass
            finally:
                os.close(fd)
    finally:
        for fd in pending:
            os.close(fd)
    return used, entries


def _shm_bytes(uid: int | None, since: float) -> int:
    owner = os.geteuid() if uid is None else uid
    total = 0
    try:
        with os.scandir(SHM) as listing:
            for entry in listing:
                try:
                    info = entry.stat(follow_symlinks=False)
                except OSError:
                    continue
                if info.st_uid == owner and (uid is not None or info.st_ctime >= since):
                    total += info.st_blocks * 512
    except OSError:
        pass
    return total


def remove_shm_files(uid: int) -> None:
    """Remove what the probes' own uid left in /dev/shm, files and folders (nothing else is theirs to leave there)."""
    remove_files_of(uid, SHM)


def remove_files_of(uid: int, folder: str) -> None:
    """Remove the entries of ``folder`` that ``uid`` owns (files and whole folders): a probe uid's leftovers."""
    from grader.shared.common import remove_tree

    try:
        with os.scandir(folder) as listing:
            for entry in listing:
                try:
                    if entry.stat(follow_symlinks=False).st_uid == uid:
                        remove_tree(entry.path)
                except OSError:
                    continue
    except OSError:
        pass
