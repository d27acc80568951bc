"""``python -m grader publish OUT``: the grader alone, for the students' workflow to fetch.

The student workflow clones a grader repository with a token that any
student who edits their workflow can use, so that repository must hold
nothing a student should not read: ``grader/`` without its tests (and
corpora) and without the instructor's tools, ``lab.toml`` and
``requirements.txt``. Never point students at this repository, which holds
``solutions/``.
"""

from __future__ import annotations

import functools
import shutil
from pathlib import Path

from grader.engine import provenance
from grader.paths import REPO

#: What of grader/ the students' workflows and the hosts need: the engine, the sandbox (inside, shared, host
#: side), the writers, the published commands and the top-level modules. Never the tools, their commands or
#: the tests. The same selection names the grader in every report (grader.engine.provenance.grader_hash).
LEFT_OUT = provenance.LEFT_OUT
README = """# Data-loading lab: hidden grader

Published from the instructor repository with `python -m grader publish`; do not edit here.
Students' workflows fetch this repository and run `python -m grader grade <submission>`.
"""


def _left_out(repo: Path, folder: str, names: list[str]) -> set[str]:
    """shutil.copytree's ignore (with ``repo`` bound): what :func:`grader.engine.provenance.is_left_out` leaves out."""
    where = Path(folder).resolve().relative_to(repo.resolve())
    return {name for name in names if provenance.is_left_out(where / name)}


class PublishError(ValueError):
    """OUT cannot be written; the message says why."""


def publish(out: Path, repo: Path = REPO, force: bool = False) -> list[Path]:
    """Write the grader-only tree into ``out``; return the files written.

    Refuses a non-empty ``out`` unless ``force`` (then everything but
    ``.git`` is replaced) and an ``out`` inside the instructor repository.
    """
    out = out.resolve()
    if out == repo or repo in out.parents:
        raise PublishError(f"{out} is inside the instructor repository; publish somewhere else")
    if out.exists() and any(p.name != ".git" for p in out.iterdir()):
        if not force:
            raise PublishError(f"{out} is not empty; use --force to replace its contents (its .git is kept)")
        for path in out.iterdir():
            if path.name != ".git":
                shutil.rmtree(path) if path.is_dir() else path.unlink()
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(repo / "grader", out / "grader", ignore=functools.partial(_left_out, repo))
    shutil.copy(repo / "requirements.txt", out / "requirements.txt")
    shutil.copy(repo / "lab.toml", out / "lab.toml")  # the registry of exercises (grader/registry.py)
    (out / "README.md").write_text(README, encoding="utf-8")
    return sorted(p for p in out.rglob("*") if p.is_file() and ".git" not in p.parts)
