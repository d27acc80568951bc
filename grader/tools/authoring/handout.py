"""``python -m grader handout``: the handout's figures, written from the lab runner's run on the reference.

LAB.md keeps one block per experiment between ``<!-- lab:x -->`` and
``<!-- /lab:x -->``: what ``python -m solutions.lab`` prints for it. This
tool runs the lab on ``solutions/`` in a process of its own (its JSON
report), formats each experiment as the lab prints it (the lab's own
``format_entry``) and puts it between the markers. It is the instructor's:
the lab runner that ships to students (``exercises/lab.py``) cannot rewrite
the handout.
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from grader.paths import REPO

HANDOUT = REPO / "LAB.md"


class HandoutError(RuntimeError):
    """The lab did not run, or the handout lacks a block; the message says which."""


def block(letter: str, text: str) -> str:
    return f"<!-- lab:{letter} -->\n```\n{text}\n```\n<!-- /lab:{letter} -->"


def with_figures(text: str, formatted: dict[str, str]) -> str:
    """``text`` with each experiment's block replaced by ``formatted[letter]``; HandoutError for a missing block."""
    for letter, figures in formatted.items():
        text, found = re.subn(rf"<!-- lab:{letter} -->.*?<!-- /lab:{letter} -->", lambda _m: block(letter, figures), text, flags=re.S)
        if not found:
            raise HandoutError(f"the handout has no <!-- lab:{letter} --> ... <!-- /lab:{letter} --> block")
    return text


def run_lab(only: str, repo: Path = REPO, timeout: float = 900) -> dict:
    """The lab's JSON report of ``python -m solutions.lab --only ONLY``, run from ``repo``."""
    with tempfile.TemporaryDirectory(prefix="grader-handout-") as tmp:
        report, errors = Path(tmp) / "lab.json", Path(tmp) / "stderr.txt"
        # stderr to a file: the forkserver inherits it, and a pipe read to its end would wait for the server to exit.
        with open(errors, "w", encoding="utf-8") as stderr:
            done = subprocess.run([sys.executable, "-m", "solutions.lab", "--only", only, "--json", str(report)], cwd=repo,
                                  stdout=subprocess.DEVNULL, stderr=stderr, timeout=timeout)
        if not report.is_file():
            raise HandoutError(f"the lab wrote no report (exit {done.returncode}): {errors.read_text(errors='replace')[-2000:]}")
        return json.loads(report.read_text(encoding="utf-8"))


def write_figures(path: Path = HANDOUT, only: str = "abcd", repo: Path = REPO) -> list[str]:
    """Run the lab on the reference and write its figures into ``path``; return the experiments written.

    Refuses (HandoutError) when an experiment did not show what the handout says: the handout never shows a [NO].
    """
    from solutions.lab import format_entry

    report = run_lab(only, repo)
    wrong = [f"({letter}) {entry['status']}" for letter, entry in report["experiments"].items() if entry["status"] != "ok"]
    if wrong:
        raise HandoutError(f"the reference did not show what the handout says: {', '.join(wrong)}; LAB.md left as it was")
    formatted = {letter: format_entry(letter, entry) for letter, entry in report["experiments"].items()}
    path.write_text(with_figures(path.read_text(encoding="utf-8"), formatted), encoding="utf-8")
    return sorted(formatted)
