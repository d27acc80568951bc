"""Writing report files so that nothing a submission planted can redirect or block them.

A report path comes from the grader's command line, but the folder it names
may sit in a student's checkout (the student workflow writes its report
there). So:

* the folder is opened component by component without following links,
  except links owned by root (the system's own, like ``/var/run``): a link a
  student committed is refused with a message, never written through;
* the text goes to a new temporary file in that folder, which then replaces
  the target name (``os.replace``): a link or FIFO planted at the target is
  replaced, never opened, so nothing is written elsewhere and nothing blocks;
* :func:`append_text` (for ``$GITHUB_STEP_SUMMARY``, which the runner owns
  and expects steps to append to) opens without following links and without
  blocking, and refuses anything but a regular file.
"""

from __future__ import annotations

import os
import secrets
import stat
from pathlib import Path


class ReportPathError(OSError):
    """A report path that cannot be written safely; the message says why and what to do."""


def _open_folder(folder: Path) -> int:
    """An fd of ``folder``, made if missing, reached without following non-root links."""
    fd = os.open("/" if folder.is_absolute() else ".", os.O_RDONLY | os.O_DIRECTORY)
    try:
        for part in folder.parts[1:] if folder.is_absolute() else folder.parts:
            try:
                info = os.lstat(part, dir_fd=fd)
            except FileNotFoundError:
                os.mkdir(part, 0o755, dir_fd=fd)
                info = os.lstat(part, dir_fd=fd)
            if stat.S_ISLNK(info.st_mode) and info.st_uid != 0:
                raise ReportPathError(f"{folder}: {part} is a symbolic link (not the system's); "
                                      "write reports to a real folder")
            flags = os.O_RDONLY | os.O_DIRECTORY | (0 if stat.S_ISLNK(info.st_mode) else os.O_NOFOLLOW)
            try:
                next_fd = os.open(part, flags, dir_fd=fd)
            except NotADirectoryError:
                raise ReportPathError(f"{folder}: {part} is not a folder") from None
            os.close(fd)
            fd = next_fd
    except BaseException:
        os.close(fd)
        raise
    return fd


def write_text(path: str | os.PathLike, text: str) -> Path:
    """Replace ``path`` with ``text`` (UTF-8, lone surrogates backslash-escaped), atomically."""
    target = Path(path)
    if not target.name or target.name in (".", ".."):
        raise ReportPathError(f"{path}: not a file name")
    folder = _open_folder(target.parent)
    temp = f".{target.name}.{secrets.token_hex(6)}.tmp"
    try:
        fd = os.open(temp, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644, dir_fd=folder)
        try:
            with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace", newline="\n") as fh:
                fh.write(text)
            os.replace(temp, target.name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            try:
                os.unlink(temp, dir_fd=folder)
            except OSError:
                pass
            raise
    except IsADirectoryError:
        raise ReportPathError(f"{path} is a folder; give a file name") from None
    finally:
        os.close(folder)
    return target


def append_text(path: str | os.PathLike, text: str) -> Path:
    """Append ``text`` to the regular file ``path`` (made if missing)."""
    target = Path(path)
    folder = _open_folder(target.parent)
    try:
        fd = os.open(target.name, os.O_WRONLY | os.O_APPEND | os.O_CREAT | os.O_NOFOLLOW | os.O_NONBLOCK,
                     0o644, dir_fd=folder)
    except OSError as exc:
        raise ReportPathError(f"{path}: cannot append ({exc.strerror}); it must be a regular file") from None
    finally:
        os.close(folder)
    with os.fdopen(fd, "w", encoding="utf-8", errors="backslashreplace", newline="\n") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            raise ReportPathError(f"{path} is not a regular file")
        fh.write(text)
    return target
