"""Which grader graded, and on what: the identity and the environment every report records (grader/docs/DESIGN.md, principle 8).

The grader's identity is a SHA-256 over the tree ``python -m grader publish``
writes (:data:`PUBLISHED`: ``grader/`` without its tests and tools, plus
``requirements.txt`` and ``lab.toml``), computed from the files, so the
instructor repository, a published grader, the Gradescope zip and the
Classroom 50 bundle give the same hash for the same grader. Each file is
framed by its path and length, in sorted order; the bundles' own README and
launch scripts are not part of it.

The environment is what a regrade on another runner image could differ in:
Python, torch, numpy, the OS, the CPU model, the GPU, the start methods
``multiprocessing`` offers, and the isolation level (filled in by the runner).
Versions are read from the installed distributions, so the grading process
never imports torch for them.
"""

from __future__ import annotations

import fnmatch
import functools
import hashlib
import multiprocessing
import platform
from importlib import metadata
from pathlib import Path

from grader.command_table import PUBLISHED_COMMANDS
from grader.paths import REPO
from grader.sandbox import jail

#: What of grader/ a published grader leaves out (names at any depth; shutil.ignore_patterns): the tests, the
#: instructor's tools and the instructor's documentation (grader/docs/).
LEFT_OUT = ("tests", "tools", "docs", "corpus", "__pycache__", "*.pyc", ".pytest_cache")
#: The files next to grader/ that a published grader carries.
PUBLISHED_FILES = ("requirements.txt", "lab.toml")


def is_left_out(relative: Path) -> bool:
    """Whether ``relative`` (a path below grader/, relative to the repository) stays out of a published grader:
    a :data:`LEFT_OUT` name at any depth, or a command of grader/commands/ that only the instructor's tools serve."""
    parts = relative.parts[1:]
    if any(fnmatch.fnmatch(part, pattern) for part in parts for pattern in LEFT_OUT):
        return True
    published = {module.rsplit(".", 1)[1] + ".py" for module in PUBLISHED_COMMANDS.values()} | {"__init__.py"}
    return len(parts) == 2 and parts[0] == "commands" and parts[1].endswith(".py") and parts[1] not in published


def published_files(root: Path = REPO) -> list[Path]:
    """The files of the published grader under ``root``, relative to it, sorted (regular files only)."""
    files = []
    for path in sorted((root / "grader").rglob("*")):
        relative = path.relative_to(root)
        if is_left_out(relative):
            continue
        if path.is_file() and not path.is_symlink():
            files.append(relative)
    return files + [Path(name) for name in PUBLISHED_FILES if (root / name).is_file()]


def grader_hash(root: Path = REPO) -> str:
    """SHA-256 (hex) over the published grader's files under ``root``: each path and content, length-framed."""
    digest = hashlib.sha256()

    def frame(data: bytes) -> None:
        digest.update(len(data).to_bytes(8, "big") + data)

    frame(b"grader-tree/1")
    for relative in published_files(root):
        frame(relative.as_posix().encode())
        frame((root / relative).read_bytes())
    return digest.hexdigest()


@functools.lru_cache(maxsize=1)
def this_grader_hash() -> str:
    """:func:`grader_hash` of the grader running now (computed once per process)."""
    return grader_hash(REPO)


def grader_version(sha256: str) -> str:
    """The grader's version as reports print it: the first 12 hex digits of its hash, so any change to a
    published file is a new version and no version number is typed by hand."""
    return sha256[:12]


def this_grader_version() -> str:
    """:func:`grader_version` of the grader running now."""
    return grader_version(this_grader_hash())


def _version(distribution: str) -> str:
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:
        return "not installed"


def cpu_model() -> str:
    """The CPU's model name (from /proc/cpuinfo on Linux), or what platform says."""
    try:
        with open("/proc/cpuinfo", encoding="utf-8", errors="replace") as fh:
            for line in fh:
                key, _, value = line.partition(":")
                if key.strip() in ("model name", "Hardware", "Processor") and value.strip():
                    return value.strip()
    except OSError:
        pass
    return platform.processor() or platform.machine() or "unknown"


def environment(gpu: str = "none", isolation: str = "") -> dict[str, str]:
    """What this grading ran on: {python, torch, numpy, os, cpu, gpu, start_methods, isolation, bubblewrap}."""
    return {
        "python": platform.python_version(),
        "torch": _version("torch"),
        "numpy": _version("numpy"),
        "os": platform.platform(),
        "cpu": cpu_model(),
        "gpu": gpu or "none",
        "start_methods": ",".join(multiprocessing.get_all_start_methods()),
        "isolation": isolation,
        "bubblewrap": jail.bubblewrap().text(),
    }
