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
import sys
from pathlib import Path

from grader.engine import provenance
from grader.paths import REPO

#: What of grader/ the students' workflows and the hosts need: the engine, the sandbox, the writers and the
#: top-level modules (command line, registry, paths, text, report files). Never the tools or the tests.
#: The same selection names the grader in every report (grader.engine.provenance.grader_hash).
LEFT_OUT = provenance.LEFT_OUT
README = """# Data-loading lab: hidden grader

Published from the instructor repository with `python -m grader publish`; do not edit here.
Students' workflows fetch this repository and run `python -m grader grade <submission>`.
"""


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
    shutil.copytree(repo / "grader", out / "grader", ignore=shutil.ignore_patterns(*LEFT_OUT))
    shutil.copy(repo / "requirements.txt", out / "requirements.txt")
    shutil.copy(repo / "lab.toml", out / "lab.toml")  # the registry of exercises (grader/registry.py)
    (out / "README.md").write_text(README, encoding="utf-8")
    return sorted(p for p in out.rglob("*") if p.is_file() and ".git" not in p.parts)


HELP = "write the grader alone (no solutions, no tests) for the student workflow"


def add_arguments(parser) -> None:
    parser.add_argument("out", type=Path, help="the folder (a clone of the grader repository)")
    parser.add_argument("--force", action="store_true", help="replace the contents of a non-empty OUT (keeps .git)")


def run(args) -> int:
    try:
        files = publish(args.out, force=args.force)
    except PublishError as exc:
        print(f"python -m grader publish: error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(files)} files to {args.out}: commit and push them to the grader repository")
    return 0
