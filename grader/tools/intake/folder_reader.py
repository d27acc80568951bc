"""``batch FOLDER``'s reader: a local submission folder's five contract files, under the rules of the commit reader.

Contracts
---------
* The folder, and its ``exercises/`` when there is one, are opened without
  following links; each contract file with ``O_NOFOLLOW | O_NONBLOCK |
  O_NOCTTY``: a link (to ``/proc/self/mem``, ``/proc/kmsg``, a classmate's
  folder, anywhere), a FIFO, a device or a folder under a contract name is
  never followed, opened for reading or blocked on; a regular file is read
  up to :data:`grader.tools.intake.commit_reader.CONTRACT_FILE_MAX_BYTES` + 1 bytes and no
  further, and an LFS pointer is recognised. Each of these costs its own
  file, with the reason in :attr:`Intake.problems`; a read error too.
* The folder itself being a link, its ``exercises`` a link, or a folder that
  cannot be opened or listed raises :class:`IntakeError`: that student's row.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from grader.registry import CONTRACT_FILES
from grader.tools.intake.commit_reader import (
    CONTRACT_FILE_MAX_BYTES,
    FOLDER,
    Intake,
    IntakeError,
    case_hint,
    is_lfs_pointer,
    note_case_twins,
    write_file,
)


def read_folder(folder: Path, dest: Path) -> Intake:
    """Copy the accepted contract files of a local submission folder (or of its ``exercises/``) into ``dest``.

    Raises IntakeError when the folder itself, or its ``exercises``, is a
    link or cannot be opened.
    """
    dest.mkdir(parents=True, exist_ok=True)
    try:
        top = os.open(folder, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW)
    except OSError as exc:
        raise IntakeError(f"the submission folder cannot be opened ({_why(exc)}): not graded") from None
    try:
        prefix, base = "", top
        try:
            info = os.lstat(FOLDER, dir_fd=top)
        except FileNotFoundError:
            info = None
        if info is not None and stat.S_ISLNK(info.st_mode):
            target = os.readlink(FOLDER, dir_fd=top)
            raise IntakeError(f"{FOLDER} is a symbolic link (to {target[:200]}), not a folder: not graded")
        if info is not None and stat.S_ISDIR(info.st_mode):
            try:
                base = os.open(FOLDER, os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW, dir_fd=top)
            except OSError as exc:
                raise IntakeError(f"{FOLDER}/ cannot be opened ({_why(exc)}): not graded") from None
            prefix = f"{FOLDER}/"
        try:
            return _read_files(base, prefix, dest)
        finally:
            if base != top:
                os.close(base)
    finally:
        os.close(top)


def _read_files(base: int, prefix: str, dest: Path) -> Intake:
    intake = Intake()
    try:
        names = os.listdir(base)
    except OSError as exc:
        raise IntakeError(f"{prefix or 'the submission folder'} cannot be listed ({_why(exc)}): not graded") from None
    for name in CONTRACT_FILES:
        path = prefix + name
        note_case_twins(intake, name, names, prefix)
        problem, content = _read_one(base, name)
        if problem == "missing":
            intake.problems[name] = f"{path} is missing from the submission{case_hint(name, names, prefix)}"
            intake.missing += (name,)
        elif problem:
            intake.problems[name] = f"{path} {problem}"
        else:
            write_file(dest / name, content)
            intake.files += (name,)
    return intake


def _read_one(base: int, name: str) -> tuple[str, bytes]:
    """("", content) for an accepted file, else (what is wrong, b"")."""
    try:
        fd = os.open(name, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_NOCTTY, dir_fd=base)
    except FileNotFoundError:
        return "missing", b""
    except OSError as exc:
        if exc.errno == errno.ELOOP:
            return "is a symbolic link: submit the file itself", b""
        return f"could not be opened ({_why(exc)})", b""
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            return "is not a regular file (a folder, FIFO or device): submit a plain .py file", b""
        if info.st_size > CONTRACT_FILE_MAX_BYTES:
            return f"is larger than {CONTRACT_FILE_MAX_BYTES:,} bytes: a contract file is a .py of a few kB", b""
        chunks, size = [], 0
        while size <= CONTRACT_FILE_MAX_BYTES:
            chunk = os.read(fd, min(1 << 16, CONTRACT_FILE_MAX_BYTES + 1 - size))
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        return f"could not be read ({_why(exc)})", b""
    finally:
        os.close(fd)
    if size > CONTRACT_FILE_MAX_BYTES:
        return f"is larger than {CONTRACT_FILE_MAX_BYTES:,} bytes: a contract file is a .py of a few kB", b""
    content = b"".join(chunks)
    if is_lfs_pointer(content):
        return "is a Git LFS pointer, not the file: submit the file itself (git lfs pull, or commit it without LFS)", b""
    return "", content


def _why(exc: OSError) -> str:
    return exc.strerror or type(exc).__name__
