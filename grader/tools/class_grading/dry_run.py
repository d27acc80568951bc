"""``python -m grader dry-run CLASS_FOLDER --out DIR``: the class workflow's steps over local student folders.

.github/workflows/grade-class.yml grades a class in four steps; this runs the
same commands, in the same order, over CLASS_FOLDER (one folder per student,
named as the student: the repository's name on GitHub), so an instructor
sees what the real run will hand back before the deadline:

1. list and slice: the students in sorted order, every K-th from the I-th in
   slice I, K from ``--slices`` or, as ``slices: auto`` does, one slice per
   ``PER_SLICE`` students (at most ``MAX_SLICES``; both read from
   .github/scripts/list-repositories.py);
2. per slice: ``batch CLASS_FOLDER --slice I/K --out DIR/slice-I --files-out
   DIR/files-I`` (the real run grades the commit each repository held at the
   deadline, here the folders as they are);
3. merge: ``merge DIR/slice-* --out DIR/gradebook [--roster R]``;
4. review: ``review DIR/files-* --results DIR/gradebook --reference solutions
   --out DIR/review``.

Each step is a ``python -m grader`` process, as in the workflow's scripts;
with ``$GRADER_SEED_KEY`` set the students get their seeds of record.
DIR/INDEX.md says what is where, which artifact of the real run each folder
stands for, and each step's command, exit status and time.
"""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

from grader.paths import REPO
from grader.tools.class_grading.grade_class import BatchError, find_students

SLICING_SCRIPT = REPO / ".github" / "scripts" / "list-repositories.py"


class DryRunError(ValueError):
    """The dry run cannot start (a bad folder, a bad --slices); the message says what to fix."""


@dataclass
class Step:
    name: str
    argv: list[str]
    status: int = -1
    seconds: float = 0.0
    output: str = ""


def workflow_slicing(script: Path = SLICING_SCRIPT) -> tuple[int, int]:
    """(PER_SLICE, MAX_SLICES) of the class workflow's slicing script."""
    text = script.read_text(encoding="utf-8")
    found = [re.search(rf"^{name} = (\d+)", text, flags=re.M) for name in ("PER_SLICE", "MAX_SLICES")]
    if not all(found):
        raise DryRunError(f"{script} defines no PER_SLICE = N and MAX_SLICES = N")
    return int(found[0].group(1)), int(found[1].group(1))


def slice_count(students: int, wanted: int | None) -> int:
    """How many slices the workflow makes of ``students`` (``wanted`` None: ``slices: auto``)."""
    per_slice, most = workflow_slicing()
    if wanted is None:
        wanted = -(-students // per_slice)
    return max(1, min(wanted, most, students))


def plan(class_folder: Path, out: Path, slices: int, roster: Path | None, jobs: int, min_isolation: str) -> list[Step]:
    """The workflow's steps as commands over ``class_folder``, writing under ``out``."""
    grader = [sys.executable, "-m", "grader"]
    steps = [Step(f"grade slice {i}", [*grader, "batch", str(class_folder), "--slice", f"{i}/{slices}",
                                         "--out", str(out / f"slice-{i}"), "--files-out", str(out / f"files-{i}"),
                                         "--jobs", str(jobs), "--min-isolation", min_isolation])
             for i in range(slices)]
    steps.append(Step("merge", [*grader, "merge", *(str(out / f"slice-{i}") for i in range(slices)),
                                "--out", str(out / "gradebook"), *(["--roster", str(roster)] if roster else [])]))
    steps.append(Step("review", [*grader, "review", *(str(out / f"files-{i}") for i in range(slices)),
                                 "--results", str(out / "gradebook"), "--reference", str(REPO / "solutions"),
                                 "--out", str(out / "review")]))
    return steps


def dry_run(class_folder: Path, out: Path, *, slices: int | None = None, roster: Path | None = None, jobs: int = 2,
            min_isolation: str = "jail", echo=print) -> list[Step]:
    """Run the workflow's steps (see the module docstring); write ``out/INDEX.md``; return the steps as they ran.

    A step that fails is recorded and the next still runs (the workflow's merge and review run whatever the
    slices did); the review runs only when the merge wrote a gradebook."""
    try:
        students = find_students(Path(class_folder))
    except BatchError as exc:
        raise DryRunError(str(exc)) from None
    if slices is not None and slices < 1:
        raise DryRunError("--slices must be at least 1")
    if roster is not None and not roster.is_file():
        raise DryRunError(f"--roster {roster}: no such file")
    out = Path(out).resolve()
    if out.exists() and any(out.iterdir()):
        if not (out / "INDEX.md").is_file():
            raise DryRunError(f"{out} is not empty and holds no earlier dry run: give another --out")
        shutil.rmtree(out)
    out.mkdir(parents=True, exist_ok=True)
    count = slice_count(len(students), slices)
    steps = plan(Path(class_folder).resolve(), out, count, roster.resolve() if roster else None, jobs, min_isolation)
    for step in steps:
        if step.name == "review" and not (out / "gradebook" / "gradebook.csv").is_file():
            step.output = "not run: the merge wrote no gradebook"
            continue
        echo(f"== {step.name}: {' '.join(step.argv[2:])}", flush=True)
        started = time.monotonic()
        done = subprocess.run(step.argv, cwd=REPO, capture_output=True, text=True)
        step.status, step.seconds, step.output = done.returncode, round(time.monotonic() - started, 1), done.stdout + done.stderr
        echo(f"   exit {step.status} in {step.seconds} s", flush=True)
    (out / "INDEX.md").write_text(index(out, Path(class_folder).resolve(), len(students), count, steps, roster), encoding="utf-8")
    return steps


def index(out: Path, class_folder: Path, students: int, slices: int, steps: list[Step], roster: Path | None) -> str:
    """INDEX.md: what is where, which artifact of the real run it stands for, and how each step went."""
    rows = [("gradebook/gradebook.csv", "gradebook", "one row per student: score, per exercise, seed, commit, errors"),
            ("gradebook/summary.md", "gradebook (and the run's Summary page)", "score bands, the checks most often failed"),
            ("gradebook/canvas.csv", "gradebook", "Canvas's gradebook import (with --roster)" if roster else
             "not written: give --roster for Canvas's import"),
            ("gradebook/feedback/<student>.md", "feedback", "each student's report, to hand back"),
            ("gradebook/results/<student>.json", "feedback", "each student's full result (the grade of record)"),
            ("review/review.md", "review", "similar pairs, closeness to the reference, constructs, integrity flags"),
            ("review/similarity/<exercise>.html", "review", "the copied code side by side (offline)"),
            *((f"slice-{i}/", f"slice-{i}", "that slice's batch output") for i in range(slices)),
            *((f"files-{i}/", f"files-{i}", "the five files each student of the slice handed in") for i in range(slices))]
    lines = ["# Dry run of the class workflow", "",
             f"{students} students from `{class_folder}` in {slices} slice(s), as `.github/workflows/grade-class.yml` "
             "grades them (here: the folders as they are; there: the commit each repository held at the deadline).", "",
             "| here | artifact of the real run | what it holds |", "| --- | --- | --- |"]
    lines += [f"| `{path}` | {artifact} | {what} |" for path, artifact, what in rows]
    lines += ["", "| step | command | exit | seconds |", "| --- | --- | --- | --- |"]
    lines += [f"| {s.name} | `python -m grader {' '.join(s.argv[3:])}` | {s.status if s.status >= 0 else 'not run'} | "
              f"{s.seconds:g} |" for s in steps]
    failed = [s for s in steps if s.status > 0]
    for step in failed:
        lines += ["", f"## {step.name} exited {step.status}", "", "```", step.output.strip()[-3000:], "```"]
    return "\n".join(lines) + "\n"
