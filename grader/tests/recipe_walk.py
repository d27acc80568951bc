"""Following grader/docs/recipes.md exactly as written, on a copy of this repository.

A recipe's fenced blocks say what to do by their info string after the
language: ``create=PATH`` (write the block as that file), ``append=PATH``,
``insert=PATH after=TEXT`` (after the line holding TEXT) or ``insert=PATH before=TEXT``, ``replace=PATH``
(the block is the old text, a line :data:`BECOMES`, then the new text, each
without its last line ending; the old text must stand exactly once in PATH) or ``run`` (a bash script run in the
repository). A block with none of them is only shown.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

from grader.paths import REPO

RECIPES = REPO / "grader" / "docs" / "recipes.md"
FENCE = re.compile(r"^```(\w+)(?: ([^\n]*))?\n(.*?)^```$", flags=re.M | re.S)
#: The line that parts a ``replace=`` block's old text from its new text.
BECOMES = "----- becomes -----\n"
RUN_TIMEOUT_S = 900


def tracked_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout.split()
    return [REPO / name for name in listed if (REPO / name).is_file()]


def copy_repository(copy: Path) -> Path:
    """A copy of this checkout's files (tracked and untracked, not ignored) with this interpreter as its .venv, made a
    git repository with one commit (``verify`` compares with it)."""
    for path in tracked_files():
        target = copy / path.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    (copy / ".venv").symlink_to(Path(sys.prefix))
    git = ["git", "-C", str(copy), "-c", "user.name=recipe", "-c", "user.email=recipe@localhost"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "before the recipe"]):
        subprocess.run(git + args, check=True, capture_output=True, timeout=120)
    return copy


def recipe_steps(title: str = "Add an exercise") -> list[tuple[str, str, str]]:
    """The fenced blocks of one recipe of grader/docs/recipes.md, in order: (action, its argument, the block's text)."""
    lines, fenced, inside = [], False, False
    for line in RECIPES.read_text(encoding="utf-8").splitlines(keepends=True):
        fenced ^= line.startswith("```")
        if line.startswith("## ") and not fenced:
            inside = line == f"## {title}\n"
        elif inside:
            lines.append(line)
    assert lines, f"recipes.md has no recipe {title!r}"
    steps = []
    for _, info, body in FENCE.findall("".join(lines)):
        action, _, argument = (info or "").partition("=")
        steps.append((action.strip() or "show", argument.strip(), body))
    return steps


def follow(steps, repo: Path, timings: dict | None = None) -> None:
    """Do each step of a recipe in ``repo``, exactly as written; ``timings`` gets each ``run`` block's seconds."""
    import time

    for action, argument, body in steps:
        if action == "create":
            (repo / argument).parent.mkdir(parents=True, exist_ok=True)
            (repo / argument).write_text(body)
        elif action == "append":
            with open(repo / argument, "a") as fh:
                fh.write(body)
        elif action == "insert":
            where = "after" if " after=" in argument else "before"
            path, _, text = argument.partition(f" {where}=")
            lines = (repo / path).read_text().splitlines(keepends=True)
            holding = [i for i, line in enumerate(lines) if text in line]
            assert len(holding) == 1, f"the recipe inserts {where} {text!r}, which stands on {len(holding)} lines of {path}"
            at = holding[0] + (where == "after")
            (repo / path).write_text("".join(lines[:at]) + body + "".join(lines[at:]))
        elif action == "replace":
            old, sep, new = body.partition(BECOMES)
            assert sep, f"a replace= block of {argument} has no line {BECOMES.strip()!r}"
            old, new = old.removesuffix("\n"), new.removesuffix("\n")  # the block's last line ends, the text may not
            text = (repo / argument).read_text()
            assert text.count(old) == 1, f"the recipe replaces text that stands {text.count(old)} times in {argument}:\n{old}"
            (repo / argument).write_text(text.replace(old, new))
        elif action == "run":
            started = time.monotonic()
            done = subprocess.run(["bash", "-e", "-c", body], cwd=repo, capture_output=True, text=True, timeout=RUN_TIMEOUT_S)
            if timings is not None:
                timings[body.strip().splitlines()[-1]] = round(time.monotonic() - started, 1)
            assert done.returncode == 0, f"the recipe's step failed:\n{body}\n{done.stdout[-3000:]}{done.stderr[-3000:]}"
        elif action != "show":
            raise AssertionError(f"a recipe block says {action!r}: create=, append=, insert=, replace= or run")
