"""File work of the sandbox: copying a submission, staging grader code, removing trees.

Contracts
---------
* :func:`copy_submission` copies only regular files, opened with
  ``O_NOFOLLOW``: a symbolic link, a folder, a FIFO or a device under a
  contract file's name is skipped with a reason a student can act on.
* :func:`stage_modules` copies the grader code a probe needs (the ``.py``
  files of each module's own package folder, and the ``__init__.py`` of every
  package above it) into a fresh folder, so that the jail sees that code and
  nothing else of this repository.
* :func:`remove_tree` never recurses in Python's stack and never follows a
  link: a 3,000-deep chain of folders is removed like a flat one.
"""

from __future__ import annotations

import errno
import importlib.util
import os
import secrets
import shutil
import stat
from pathlib import Path

#: Sub-folders of a copied submission (``code/submission``) as the zygote imports it.
SUBMISSION_PACKAGE = "submission"


def copy_submission(src_dir: Path, names: tuple[str, ...], dest: Path,
                    max_bytes: int) -> tuple[tuple[str, ...], dict[str, str]]:
    """Copy the regular files ``names`` from ``src_dir`` into ``dest``, read-only.

    Returns (copied names, {skipped name: reason}); the reason is "missing"
    for a file that does not exist.
    """
    copied, skipped = [], {}
    for name in names:
        if not name or "/" in name or name.startswith("."):
            raise ValueError(f"not a plain file name: {name!r}")
        path = os.path.join(src_dir, name)
        try:
            fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
        except FileNotFoundError:
            skipped[name] = "missing"
            continue
        except OSError as exc:
            skipped[name] = ("is a symbolic link; submit the file itself" if exc.errno == errno.ELOOP
                             else f"could not be opened ({exc.strerror})")
            continue
        try:
            if not stat.S_ISREG(os.fstat(fd).st_mode):
                skipped[name] = "is not a regular file (a folder, FIFO or device); submit a plain .py file"
                continue
            content = _read_at_most(fd, max_bytes + 1)
        finally:
            os.close(fd)
        if len(content) > max_bytes:
            skipped[name] = f"is larger than {max_bytes:,} bytes"
            continue
        target = dest / name
        target.write_bytes(content)
        os.chmod(target, 0o444)
        copied.append(name)
    return tuple(copied), skipped


def _read_at_most(fd: int, limit: int) -> bytes:
    chunks, size = [], 0
    while size < limit:
        chunk = os.read(fd, min(1 << 20, limit - size))
        if not chunk:
            break
        chunks.append(chunk)
        size += len(chunk)
    return b"".join(chunks)


def _module_files(module: str) -> list[tuple[Path, Path]]:
    """(source, path relative to the import root) for what ``module`` needs."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise ValueError(f"cannot stage {module!r}: not a Python source module")
    origin = Path(spec.origin)
    depth = len(module.split(".")) - (0 if origin.name == "__init__.py" else 1)
    folder = origin.parent
    root = folder.parents[depth - 1] if depth else folder
    files = [(path, path.relative_to(root)) for path in sorted(folder.glob("*.py"))]
    for package in list(folder.relative_to(root).parents)[:-1]:
        init = root / package / "__init__.py"
        if init.is_file():
            files.append((init, init.relative_to(root)))
    return files


def stage_modules(modules: tuple[str, ...], dest: Path) -> None:
    """Copy what ``modules`` need into ``dest`` (an import root), read-only."""
    for module in modules:
        for source, relative in _module_files(module):
            target = dest / relative
            if not target.exists():
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(source, target)
                os.chmod(target, 0o444)


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
