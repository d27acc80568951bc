"""``python -m grader regrade REPORT SUBMISSION``: grade again as REPORT was graded, and say what differs.

The new grading uses REPORT's seed (a secret seed of record stays secret),
its time-limit scale, its exercises and its GPU choice, with this grader in
its own ``python -m grader grade`` process. Then it prints what differs
(grader/docs/DESIGN.md, principle 8): the score, each check (status, points and, when
those differ, the new message), the grader's identity (the hash of its
published tree, and its version) and the environment (Python, torch, numpy,
OS, CPU, GPU, start methods, isolation). ``--json FILE`` keeps the new report.

Exit status: 0 when the grade is the same (score and every check's status
and points) by the same grader, whatever the environment; 1 when the score,
a check or the grader differs; 2 for a report or submission that cannot be
used, or a grading that fails.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
from pathlib import Path

from grader.engine.results import EXERCISES, GradeResult
from grader.engine.secret_seed import seed_pipe
from grader.paths import REPO
from grader.tools.class_grading.class_reports import MAX_REPORT_BYTES
from grader.tools.class_grading.grade_class import SECRET_VARIABLES
from grader.writers.formatting import pts

GRADE_TIMEOUT_S = 900
#: Per-run text in messages: pids, sizes, seconds, temporary paths (see :func:`comparable`).
_RUN_TEXT = [(re.compile(r"/tmp/[^\s'\"),]+"), "<tmp>"), (re.compile(r"\bpid \d+"), "pid N"),
             (re.compile(r"\b\d+(?:\.\d+)? ?(?:[kKMG]i?B|bytes)\b"), "N MB"), (re.compile(r"\b\d+(?:\.\d+)? ?s\b"), "N s")]


class RegradeError(ValueError):
    """A report or submission that cannot be regraded; the message says why."""


def normalise_text(text: str) -> str:
    for pattern, replacement in _RUN_TEXT:
        text = pattern.sub(replacement, text)
    return text


def comparable(report: dict) -> dict:
    """A report (``to_dict`` form) without what differs from run to run of the same grading: durations,
    timestamps, the submission's path, phases, provenance, the environment, the throughput figure (a measurement of
    the machine as much as of the code), per-run text in messages, and the record that a pass came on confirmation (a
    load-dependent timeout confirmed alone passed: the verdict is the same pass as a first-time one)."""
    data = json.loads(json.dumps(report))
    for key in ("duration_s", "started_at", "submission", "phases", "provenance", "environment", "throughput"):
        data.pop(key, None)
    data.get("isolation", {}).pop("reason", None)
    for exercise in data.get("exercises", []):
        exercise["note"] = normalise_text(exercise.get("note", ""))
        for check in exercise.get("checks", []):
            check.pop("duration_s", None)
            if check.get("confirmation") == "passed":
                check.pop("confirmation")
            check["message"], check["output"] = normalise_text(check.get("message", "")), normalise_text(check.get("output", ""))
    data["integrity"] = {"flags": [normalise_text(f) for f in data.get("integrity", {}).get("flags", [])]}
    return data


def read_report(path: Path) -> GradeResult:
    try:
        if path.stat().st_size > MAX_REPORT_BYTES:
            raise RegradeError(f"{path} holds more than the grader ever writes ({MAX_REPORT_BYTES:,} bytes)")
        return GradeResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError, AttributeError) as exc:
        if isinstance(exc, RegradeError):
            raise
        raise RegradeError(f"cannot read the report {path}: {type(exc).__name__}: {str(exc)[:300]}") from None


def grade_options(original: GradeResult) -> list[str]:
    """The ``grade`` options that replay ``original``: its seed (a repository's public one, or plain; a seed of record
    goes on a pipe, never here), scale, exercises and GPU choice."""
    options = ["--timeout-scale", f"{original.timeout_scale:g}", "--gpu", "off" if original.gpu in ("", "none") else "on"]
    if original.seed_from_repository:
        options += ["--seed-from-repository", original.seed_from_repository]
    elif not original.seed_secret:
        options += ["--seed", str(original.seed)]  # a seed of record goes on a pipe (regrade)
    graded = [e.name for e in original.exercises]
    if graded and set(graded) != set(EXERCISES):
        options += ["--only", ",".join(graded)]
    return options


def regrade(original: GradeResult, submission: Path, keep: Path | None = None) -> GradeResult:
    """Grade ``submission`` again with ``original``'s options; return the new result (RegradeError when it fails)."""
    if not submission.is_dir():
        raise RegradeError(f"submission folder {submission} does not exist")
    with tempfile.TemporaryDirectory(prefix="grader-regrade-") as tmp:
        report = keep or Path(tmp) / "regrade.json"
        fd = seed_pipe(original.seed) if original.seed_secret else None
        cmd = [sys.executable, "-m", "grader", "grade", str(submission), "--quiet", "--json", str(report),
               *grade_options(original), *(["--secret-seed-fd", str(fd)] if fd is not None else [])]
        env = {k: v for k, v in os.environ.items() if k not in SECRET_VARIABLES}
        try:
            done = subprocess.run(cmd, cwd=REPO, env=env, capture_output=True, text=True, timeout=GRADE_TIMEOUT_S,
                                  pass_fds=() if fd is None else (fd,))
        except subprocess.TimeoutExpired:
            raise RegradeError(f"the regrade did not finish within {GRADE_TIMEOUT_S} s") from None
        finally:
            if fd is not None:
                os.close(fd)
        if done.returncode != 0 or not report.is_file():
            lines = [line for line in done.stderr.splitlines() if line.strip()]
            raise RegradeError(f"the grader exited with status {done.returncode}: {lines[-1] if lines else 'no message'}")
        return GradeResult.from_dict(json.loads(report.read_text(encoding="utf-8")))


def differences(old: GradeResult, new: GradeResult) -> tuple[list[str], list[str]]:
    """(what differs in the grade or the grader, what differs in the environment), one line each."""
    grade = []
    if (old.grader_sha256, old.grader_version) != (new.grader_sha256, new.grader_version):
        grade.append(f"grader: {old.grader_sha256 or 'not recorded'} (version {old.grader_version or '?'}) -> "
                     f"{new.grader_sha256} (version {new.grader_version})")
    if old.score != new.score or old.max_score != new.max_score:
        grade.append(f"score: {pts(old.score)} / {pts(old.max_score)} -> {pts(new.score)} / {pts(new.max_score)}")
    before = {(c.exercise, c.name): c for c in old.all_checks()}
    after = {(c.exercise, c.name): c for c in new.all_checks()}
    for key in [*before, *(k for k in after if k not in before)]:
        a, b = before.get(key), after.get(key)
        name = "/".join(key)
        if b is None:
            grade.append(f"check {name}: {a.status} {pts(a.score)}/{pts(a.max_score)} -> not in the regrade")
        elif a is None:
            grade.append(f"check {name}: not in the report -> {b.status} {pts(b.score)}/{pts(b.max_score)}")
        elif (a.status, a.score, a.max_score) != (b.status, b.score, b.max_score):
            message = b.message.strip().splitlines()[0][:200] if b.message.strip() else ""
            grade.append(f"check {name}: {a.status} {pts(a.score)}/{pts(a.max_score)} -> {b.status} "
                         f"{pts(b.score)}/{pts(b.max_score)}" + (f" ({message})" if message else ""))
    environment = [f"environment {key}: {old.environment.get(key, 'not recorded')} -> {new.environment.get(key, 'not recorded')}"
                   for key in sorted(set(old.environment) | set(new.environment))
                   if old.environment.get(key) != new.environment.get(key)]
    return grade, environment
