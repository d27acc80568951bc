"""What both sides of the jail use: the names they agree on and the removal of a folder tree.

Imported by the host side (:mod:`grader.sandbox`) and by the code inside the
jail (:mod:`grader.inside`); standard library only.
"""

from __future__ import annotations

import errno
import os
import secrets
import stat

#: The package the submission's files are imported as inside the jail (``submission.collate``).
SUBMISSION_PACKAGE = "submission"
#: The package of the probes every exercise shares (loading, stub detection, workers) and of the throughput probes.
PROBES_PACKAGE = "grader.inside.probes"
#: The modules of :data:`PROBES_PACKAGE`; any other probe module is an exercise's own.
SHARED_PROBE_MODULES = ("common", "throughput")
#: The package of the exercises' folders (``grader/exercises/<exercise>/``). Of each folder only the module
#: :data:`PROBE_MODULE` (and the packages' ``__init__``) enters the jail; checks, helpers and corpus stay outside.
EXERCISES_PACKAGE = "grader.exercises"
PROBE_MODULE = "probe"


def probe_module(short: str) -> str:
    """The full module of a probe module named ``short``: a shared one (``common``) or an exercise (``collate``).

    A probe is named ``<short>:<function>`` by the checks (``collate:basic``); this is where its module lives.
    """
    if short in SHARED_PROBE_MODULES:
        return f"{PROBES_PACKAGE}.{short}"
    return f"{EXERCISES_PACKAGE}.{short}.{PROBE_MODULE}"


def exercise_of_probe(probe: str) -> str:
    """The exercise whose probe ``probe`` (``<module>:<function>``, a full module) is; "" for a shared probe."""
    parts = probe.partition(":")[0].split(".")
    if len(parts) == 4 and ".".join(parts[:2]) == EXERCISES_PACKAGE and parts[3] == PROBE_MODULE:
        return parts[2]
    return ""
#: The process name of the zygote's shared multiprocessing forkserver (the host tells it from its other children).
FORKSERVER_PROCESS_NAME = b"grader-fksrv"


def remove_tree(path: str | os.PathLike, max_steps: int = 10_000_000) -> None:
    """Remove ``path`` and everything below it; raise OSError if that fails.

    Works level by level without recursion: a folder that is not empty has
    its entries moved up into the top folder, then is removed once empty.
    Links are removed, never followed.  Folders the caller owns but may not
    write or search (mode 000) are made accessible first.
    """
    try:
        info = os.lstat(path)
    except FileNotFoundError:
        return
    if not stat.S_ISDIR(info.st_mode):
        os.unlink(path)
        return
    os.chmod(path, 0o700)
    top = os.open(path, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    try:
        _empty_folder(top, max_steps)
    finally:
        os.close(top)
    os.rmdir(path)


def _empty_folder(top: int, max_steps: int) -> None:
    token = secrets.token_hex(4)
    moved = steps = 0
    while True:
        with os.scandir(top) as entries:
            batch = [(e.name, e.is_dir(follow_symlinks=False)) for e in entries]
        if not batch:
            return
        for name, is_dir in batch:
            steps += 1
            if steps > max_steps:
                raise OSError(errno.EMLINK, f"gave up after {max_steps:,} removals")
            if not is_dir:
                os.unlink(name, dir_fd=top)
                continue
            try:
                os.rmdir(name, dir_fd=top)
                continue
            except OSError as exc:
                if exc.errno not in (errno.ENOTEMPTY, errno.EEXIST, errno.EACCES, errno.EPERM):
                    raise
            _chmod_quietly(name, top)
            sub = os.open(name, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=top)
            try:
                with os.scandir(sub) as inner:
                    names = [e.name for e in inner]
                for inner_name in names:
                    moved += 1
                    os.rename(inner_name, f".rm-{token}-{moved}", src_dir_fd=sub, dst_dir_fd=top)
            finally:
                os.close(sub)


def _chmod_quietly(name: str, dir_fd: int) -> None:
    try:
        os.chmod(name, 0o700, dir_fd=dir_fd)
    except OSError:
        pass  # not ours: the rename below says why if it matters
