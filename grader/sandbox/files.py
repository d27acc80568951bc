"""What was submitted, and what the jail gets: the host side's one answer to "what is in the submission folder".

Contracts
---------
* :func:`copy_submission` copies only regular files, opened with
  ``O_NOFOLLOW``: a symbolic link, a folder, a FIFO or a device under a
  contract file's name is skipped with a reason a student can act on.
* :func:`stage_modules` copies the grader code a probe needs (the ``.py``
  files of each module's own package folder, and the ``__init__.py`` of every
  package above it) into a fresh folder, so that the jail sees that code and
  nothing else of this repository.
* :func:`check_submission_folder` refuses a folder that is a link or leads
  into this repository; :func:`extra_files` names the files beside the
  contract files that are ignored and flagged (``conftest.py``, ``torch.py``...).

Removing a tree is :func:`grader.shared.common.remove_tree` (both sides use it).
"""

from __future__ import annotations

import errno
import importlib.util
import os
import shutil
import stat
from pathlib import Path

from grader.paths import REPO
from grader.shared.common import (
    EXERCISES_PACKAGE,
    SUBMISSION_PACKAGE,  # noqa: F401  (the package copy_submission's folder becomes)
)

#: Source of the generated ``submission/__init__.py``.
INIT_SOURCE = '''\
"""Student submission copied by the grader sandbox (generated file)."""
import importlib as _importlib
import importlib.abc as _abc
import importlib.util as _util
import os as _os
import sys as _sys

_NAMES = frozenset(
    _n[:-3] for _n in _os.listdir(_os.path.dirname(__file__))
    if _n.endswith(".py") and _n != "__init__.py")


class _Alias(_abc.MetaPathFinder, _abc.Loader):
    """Answer a flat ``import collate`` with the module ``submission.collate``."""

    def find_spec(self, name, path=None, target=None):
        if path is None and name in _NAMES:
            return _util.spec_from_loader(name, self)
        return None

    def create_module(self, spec):
        return _importlib.import_module(__name__ + "." + spec.name)

    def exec_module(self, module):
        pass


if not any(type(_f).__name__ == "_Alias" for _f in _sys.meta_path):
    _sys.meta_path.append(_Alias())
'''


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
    """(source, path relative to the import root) for what ``module`` needs: every module of its folder (the
    rooms of grader/inside/ and grader/shared/ import one another), but of an exercise's folder the probe module
    alone (its checks, helpers and corpus answers never enter the jail); and the ``__init__`` of each package
    above it."""
    spec = importlib.util.find_spec(module)
    if spec is None or not spec.origin or not spec.origin.endswith(".py"):
        raise ValueError(f"cannot stage {module!r}: not a Python source module")
    origin = Path(spec.origin)
    depth = len(module.split(".")) - (0 if origin.name == "__init__.py" else 1)
    folder = origin.parent
    root = folder.parents[depth - 1] if depth else folder
    if module.startswith(EXERCISES_PACKAGE + "."):
        files = [(origin, origin.relative_to(root))]
        packages = [folder.relative_to(root), *list(folder.relative_to(root).parents)[:-1]]
    else:
        files = [(path, path.relative_to(root)) for path in sorted(folder.glob("*.py"))]
        packages = list(folder.relative_to(root).parents)[:-1]
    for package in packages:
        init = root / package / "__init__.py"
        if init.is_file() and (init, init.relative_to(root)) not in files:
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


#: Files beside the contract files that would change how Python or pytest behave if they ran: never copied,
#: never run, and named in the report's integrity flags.
EXTRA_FILE_NAMES = ("conftest.py", "sitecustomize.py", "usercustomize.py", "pytest.ini", "torch.py", "numpy.py", "setup.py")


def extra_files(submission: Path) -> list[str]:
    """The :data:`EXTRA_FILE_NAMES` present in ``submission``."""
    return [name for name in EXTRA_FILE_NAMES if (submission / name).exists()]


def check_submission_folder(submission: Path) -> Path:
    """``submission`` if it may be graded; raise ValueError (with what to fix) if not.

    A submission folder must be a real folder, not a symbolic link, and must
    not lead into this repository through a link (a student's ``exercises``
    pointing at ``solutions/`` would grade the reference).
    """
    if submission.is_symlink():
        raise ValueError(f"submission folder {submission} is a symbolic link; give the real folder")
    if not submission.is_dir():
        raise FileNotFoundError(f"submission folder {submission} does not exist")
    real, given = Path(os.path.realpath(submission)), Path(os.path.abspath(submission))
    if real.is_relative_to(REPO) and not given.is_relative_to(REPO):
        raise ValueError(f"submission folder {submission} leads into the grader's repository ({real}) through a link")
    return submission
