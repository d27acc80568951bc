"""``python -m grader publish OUT``: the grader alone, for the students' workflow to fetch.

The student workflow clones a grader repository with a token that any
student who edits their workflow can use, so that repository must hold
nothing a student should not read: ``grader/`` without its tests (and
corpora) and without the instructor's tools, ``lab.toml`` and
``requirements.txt``. Never point students at this repository, which holds
``solutions/``.
"""

from __future__ import annotations

import shutil
from pathlib import Path

from grader.cli import PUBLISHED_COMMANDS
from grader.paths import REPO

#: What of grader/ the students' workflows and the hosts need: the engine, the sandbox (inside, shared, host
#: side), the writers, the published commands and the top-level modules. Never the tools, their commands or
#: the tests.
LEFT_OUT = ("tests", "tools", "__pycache__", "*.pyc", ".pytest_cache")
README = """# Data-loading lab: hidden grader

Published from the instructor repository with `python -m grader publish`; do not edit here.
Students' workflows fetch this repository and run `python -m grader grade <submission>`.
"""


def _left_out(folder: str, names: list[str]) -> set[str]:
    """shutil.copytree's ignore: :data:`LEFT_OUT`, and in grader/commands/ every instructor command."""
    ignored = set(shutil.ignore_patterns(*LEFT_OUT)(folder, names))
    if Path(folder).name == "commands":
        published = {module.rsplit(".", 1)[1] + ".py" for module in PUBLISHED_COMMANDS.values()}
        ignored |= {n for n in names if n.endswith(".py") and n != "__init__.py" and n not in published}
    return ignored


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
    shutil.copytree(repo / "grader", out / "grader", ignore=_left_out)
    shutil.copy(repo / "requirements.txt", out / "requirements.txt")
    shutil.copy(repo / "lab.toml", out / "lab.toml")  # the registry of exercises (grader/registry.py)
    (out / "README.md").write_text(README, encoding="utf-8")
    return sorted(p for p in out.rglob("*") if p.is_file() and ".git" not in p.parts)
