"""How much a probe has written where no tmpfs caps it: its scratch folders and its files in /dev/shm.

Inside a jail, ``/tmp``, ``/dev/shm`` and the scratch folders are size-capped
memory file systems of the jail's own. Without namespaces they are the
machine's, so the zygote measures them while a probe runs
(:func:`written_bytes`) and kills the probe over its quota, before it can
fill the disk or the memory of a small container and lose the results.
Runs inside the zygote; standard library only.
"""

from __future__ import annotations

import os
import stat

SHM = "/dev/shm"
#: A probe that leaves more files than this is over its quota whatever their size (walking them costs time too).
MAX_ENTRIES = 20_000


def written_bytes(folders: list[str], *, shm_uid: int | None, shm_since: float) -> tuple[int, int]:
    """(bytes on disk, entries) below ``folders``, plus the probe's files in /dev/shm.

    The probe's /dev/shm files are those owned by ``shm_uid`` (its own uid),
    or, when it shares the zygote's uid (``shm_uid`` None), those of this uid
    changed since ``shm_since`` (a ``time.time()``). Links are never followed;
    the walk stops after :data:`MAX_ENTRIES` entries.
    """
    used = entries = 0
    pending = list(folders)
    while pending and entries <= MAX_ENTRIES:
        try:
            with os.scandir(pending.pop()) as listing:
                for entry in listing:
                    entries += 1
                    info = entry.stat(follow_symlinks=False)
                    used += info.st_blocks * 512
                    if stat.S_ISDIR(info.st_mode):
                        pending.append(entry.path)
        except OSError:
            continue
    return used + _shm_bytes(shm_uid, shm_since), entries


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
    """Remove what the probes' own uid left in /dev/shm (nothing else is theirs to leave there)."""
    try:
        with os.scandir(SHM) as listing:
            for entry in listing:
                try:
                    if entry.stat(follow_symlinks=False).st_uid == uid:
                        os.unlink(entry.path)
                except OSError:
                    continue
    except OSError:
        pass
