"""The class of 30 (honest students and the repositories corpus) through grade-class.yml's own steps.

The grade of record as GitHub's runners make it, run here: the list job
(``.github/scripts/list-repositories.py``) splits the 30 repositories into
two slices; each slice's grade job (``grade-slice.sh``: record-submissions
against the stand-in ``gh``, then ``batch --from-server``) fetches every
recorded commit through the reader, slice 0 over HTTP from a stand-in for
GitHub requiring the token (git's own http-backend), slice 1 over
``file://``; the merge job (``merge-slices.sh``) makes one gradebook (and,
from a roster, the Canvas import), then reviews the class (``review-class.sh``)
over the five files each slice uploaded. The course key is the secret
GRADER_SEED_KEY, so every student has a secret seed of record. A listener
sits where the hostile repositories send git-lfs and submodules.

The grading runs once per test run (:func:`grader.tests.class_of_30.once`);
each test then judges its part of the outcome: every honest row has the
score its recipe says, each hostile repository has the row its
``expect.toml`` says (``test_hostile_repository[<case>]``, counted by the
scoreboard), nothing reached the listener, the token reached the stand-in
for GitHub, nothing was cloned, and no crafted name ran as code.
"""

from __future__ import annotations

import csv
import io
import json
import os
import shutil
import subprocess
import sys
import time
from pathlib import Path

import pytest

from grader.paths import REPO
from grader.registry import EXERCISES
from grader.tests import stub_gh
from grader.tests.class_of_30 import attacker_listener, shared_class
from grader.tests.git_http import USER, GitServer, basic
from grader.tests.repository_corpus import case_names
from grader.tests.workflow_steps import StepRunner, load, run_job

# The timeout is a backstop (the grading of the class runs in the first test that asks): on a 2-core machine shared
# with other gradings, the class alone has taken more than 900 s.
pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

TOKEN = "ghs_fake_classroom_token_for_the_class_of_30"
SEED_KEY = "course-key-of-the-class-of-30"
#: The roster the instructor hands merge: all but two of the class (tia and many_files), and one student who
#: handed in nothing (zed).
ROSTER_LEFT_OUT = ("tia", "many_files")
WORKFLOW = REPO / ".github" / "workflows" / "grade-class.yml"


def _workspace(root: Path) -> Path:
    """The instructor repository as actions/checkout leaves it: the grader (without its tests) and .github/."""
    workspace = root / "instructor-checkout"
    shutil.copytree(REPO / "grader", workspace / "grader", ignore=shutil.ignore_patterns("tests", "__pycache__"))
    shutil.copytree(REPO / ".github", workspace / ".github")
    for name in ("lab.toml", "requirements.txt", "requirements-instructor.txt"):
        shutil.copy(REPO / name, workspace / name)
    for name in ("solutions", "exercises"):  # the review's reference and boilerplate
        shutil.copytree(REPO / name, workspace / name, ignore=shutil.ignore_patterns("__pycache__"))
    return workspace


def _roster(workspace: Path, students) -> str:
    """roster.csv in the instructor's repository, as the workflow's roster input names it."""
    lines = ["student_id,name,sis_user_id,sis_login_id,section"]
    lines += [f"{s},{s.title()} Student,SIS-{s},{s}@example.edu,Section {i % 2 + 1}"
              for i, s in enumerate(sorted(students)) if s not in ROSTER_LEFT_OUT]
    lines.append("zed,Zed Absent,SIS-zed,zed@example.edu,Section 1")
    (workspace / "roster.csv").write_text("\n".join(lines) + "\n")
    return "roster.csv"


def _bin(root: Path) -> Path:
    """gh (the stand-in) and python (pip recorded, not run) first on PATH."""
    folder = root / "bin"
    stub_gh.install(folder)
    shim = folder / "python"
    shim.write_text(f'#!/bin/sh\nif [ "$1" = -m ] && [ "$2" = pip ]; then exit 0; fi\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    return folder


def grade_the_class(root: Path) -> dict:
    """Run the list, grade (two slices) and merge jobs on the shared class; return what the tests judge."""
    klass = shared_class()
    workflow, workspace, bin_dir = load(WORKFLOW), _workspace(root), _bin(root)
    summary = root / "summary.md"
    summary.write_text("")
    base = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "GITHUB_STEP_SUMMARY": str(summary),
            "STUB_GH_ANSWERS": str(klass.answers), "STUB_GH_LOG": str(root / "gh.log")}
    for name in ("GH_TOKEN", "CLASSROOM_TOKEN", "GITHUB_TOKEN"):
        base.pop(name, None)
    logs, seconds = {}, {}

    def job(name: str, temp: Path, values: dict, **env) -> None:
        temp.mkdir(parents=True, exist_ok=True)
        runner = StepRunner({**base, "RUNNER_TEMP": str(temp), **env}, values, cwd=workspace)
        started = time.monotonic()
        green = run_job(runner, workflow, name.split("-")[0])
        seconds[name] = round(time.monotonic() - started, 1)
        logs[name] = {step: log[-4000:] for step, log in runner.logs.items()}
        assert green, f"the {name} job failed: {json.dumps(logs[name], indent=1)[-6000:]}"

    values = {"secrets.CLASSROOM_TOKEN": TOKEN, "inputs.repositories": "\n".join(klass.repositories),
              "inputs.organization": "", "inputs.assignment_prefix": "", "inputs.slices": "2",
              "inputs.deadline": "2026-12-01T23:59:00+00:00", "inputs.min_isolation": "jail",
              "secrets.GRADER_SEED_KEY": SEED_KEY, "inputs.roster": _roster(workspace, klass.students)}
    job("list", root / "temp-list", values)
    matrix = json.loads(values["steps.split.outputs.matrix"])["include"]
    with attacker_listener(klass) as attacker, GitServer(klass.server, TOKEN) as github:
        servers = {0: github.url, 1: klass.server.as_uri()}
        for entry in matrix:
            number = entry["slice"]
            job(f"grade-{number}", root / f"temp-{number}",
                {**values, "matrix.repositories": entry["repositories"], "matrix.slice": str(number)},
                GITHUB_SERVER_URL=servers[number])
            shutil.copytree(workspace / "out" / f"slice-{number}", root / "temp-merge" / "slices" / f"slice-{number}")
            # download-artifact with merge-multiple: every slice's files-<slice> into one folder
            shutil.copytree(workspace / "out" / f"files-{number}", root / "temp-merge" / "files", dirs_exist_ok=True)
        job("merge", root / "temp-merge", values)
    gradebook, review = workspace / "gradebook", workspace / "review"
    return {
        "rows": list(csv.DictReader(io.StringIO((gradebook / "gradebook.csv").read_text(encoding="utf-8")))),
        "feedback": {p.stem: p.read_text(encoding="utf-8") for p in (gradebook / "feedback").glob("*.md")},
        "summary": summary.read_text(encoding="utf-8"),
        "slices": [e["repositories"].split() for e in sorted(matrix, key=lambda e: e["slice"])],
        "github": [{"path": r.path, "token": r.authorization == basic(USER, TOKEN), "auth": bool(r.authorization)}
                   for r in github.requests],
        "attacker": [{"path": r.path, "headers": r.headers} for r in attacker.requests],
        "pwned": [str(p) for p in (*workspace.rglob("*pwned*"), *root.glob("temp-*/*pwned*"), *Path.cwd().glob("*pwned*"))],
        "git_folders": [str(p) for p in root.rglob("*") if p.is_dir() and (p.name == ".git" or p.name.endswith(".git"))],
        "seconds": seconds,
        "logs": logs,
        "slices_dir": str(root / "temp-merge" / "slices"),
        "files_dir": str(root / "temp-merge" / "files"),
        "results_dir": str(gradebook / "results"),
        "canvas": (gradebook / "canvas.csv").read_text(encoding="utf-8"),
        "gradebook_summary": (gradebook / "summary.md").read_text(encoding="utf-8"),
        "review": {p.name: p.read_text(encoding="utf-8") for p in review.glob("*.*")},
        "review_html": sorted(p.name for p in (review / "similarity").glob("*.html")),
    }


@pytest.fixture(scope="module")
def rows(graded):
    return {row["student"]: row for row in graded["rows"]}


def test_the_class_workflow_grades_the_whole_class_in_two_slices(graded):
    klass = shared_class()
    assert sorted(r["student"] for r in graded["rows"]) == sorted(klass.students), "one row per student, no more"
    assert sorted(r for s in graded["slices"] for r in s) == sorted(klass.repositories)
    assert graded["summary"].count("## Class summary") == 1 and f"Students: {len(klass.students)}" in graded["summary"]
    print(f"class of 30: {graded['seconds']} s per job")


def test_the_token_reaches_the_stand_in_for_github_and_nothing_else(graded):
    over_http = {r.split("/")[1] for r in graded["slices"][0]}  # slice 0 is fetched over HTTP
    asked = graded["github"]
    assert {r["path"].split("/")[2].removesuffix(".git") for r in asked} == over_http - {"api_non_object"}
    assert all(r["token"] for r in asked if r["auth"]), "only the class token is ever sent"
    assert sum(r["token"] for r in asked) >= 2 * (len(over_http) - 1), "every fetch over HTTP carried the token"
    assert graded["attacker"] == [], f"a hostile repository's server was contacted: {graded['attacker'][:3]}"


def test_nothing_is_cloned_and_no_crafted_name_runs(graded):
    assert graded["pwned"] == [], "a crafted branch or tag name ran as shell code"
    assert graded["git_folders"] == [], "a student repository was cloned or left behind"


def test_honest_students_score_what_their_files_are_worth(graded, rows):
    for name, student in shared_class().students.items():
        if student["kind"] != "honest":
            continue
        row = rows[name]
        assert row["status"] == "graded", row
        assert {e: float(row[e]) for e in EXERCISES} == student["scores"], (name, row)
        assert row["commit"] == student["commit"] and row["submitted_via"] == "push to refs/heads/main", row
        assert row["integrity_flags"] == "" and row["isolation"] == "jail", row
        assert row["unconfirmed"] == "0", f"{name}: a verdict was left unconfirmed: {row}"


def test_a_cpu_hog_changes_no_classmates_row(graded, rows):
    """The hog (class_of_30.Hog) burns the CPU beside its classmates' gradings at --jobs 2: its own collate scores 0,
    every honest row is exactly its recipe's (test_honest_students_score_what_their_files_are_worth), and no verdict
    is left unconfirmed; which checks were confirmed alone is printed."""
    students = shared_class().students
    hogs = [name for name, student in students.items() if student["kind"] == "hog"]
    assert hogs, "the class has no hog"
    for name in hogs:
        assert {e: float(rows[name][e]) for e in EXERCISES} == students[name]["scores"], rows[name]
    assert all(row["unconfirmed"] == "0" for row in rows.values() if row["status"] == "graded"), rows
    confirmed = {name: row["confirmed_alone"] for name, row in rows.items() if row["confirmed_alone"] not in ("", "0")}
    print(f"checks confirmed alone, by student: {confirmed or 'none'}")
    for name, count in confirmed.items():
        report = json.loads((Path(graded["results_dir"]) / f"{name}.json").read_text())
        checks = [c for e in report["exercises"] for c in e["checks"] if c.get("confirmation") in ("confirmed", "passed")]
        assert len(checks) == int(count), (name, checks)
        for check in checks:
            said = "passed on confirmation" if check["confirmation"] == "passed" else "confirmed alone"
            assert said in check["message"], check


@pytest.mark.parametrize("case", case_names())
def test_hostile_repository(case, graded, rows):
    """The row of one case of the repositories corpus is what its expect.toml says, and the others are untouched."""
    student, row = shared_class().students[case], rows[case]
    if "error" in student:
        assert row["status"] == "grader error" and student["error"] in row["error"], row
        return
    assert row["status"] == "graded", row
    assert {e: float(row[e]) for e in EXERCISES} == student["scores"], row
    assert row["commit"] == student["commit"], row
    for exercise, reason in student["reasons"].items():
        assert reason in row["integrity_flags"], row["integrity_flags"]
        assert reason in graded["feedback"][case], f"the feedback does not say why {exercise} was not graded"
    for flag in student["flags"]:
        assert flag in row["integrity_flags"], row["integrity_flags"]


def _merge_peak_kb(slices: list[Path], out: Path) -> int:
    """Peak resident memory (kB, the kernel's count from wait4) of ``python -m grader merge`` over ``slices``."""
    proc = subprocess.Popen([sys.executable, "-m", "grader", "merge", *map(str, slices), "--out", str(out)], cwd=REPO,
                            stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
    _pid, status, usage = os.wait4(proc.pid, 0)
    assert os.waitstatus_to_exitcode(status) == 0, proc.stderr.read()[-2000:]
    return usage.ru_maxrss


def test_a_forged_frame_costs_its_exercise_and_no_report_or_merge_grows(graded, rows, tmp_path):
    """Row 1 of the receiving-end issue, in the class: tia's collate.py writes a 15 MB result frame itself."""
    forgers = [name for name, student in shared_class().students.items() if student["kind"] == "forger"]
    assert forgers, "the class has no forger"
    slices = sorted(Path(graded["slices_dir"]).iterdir())
    for name in forgers:
        row = rows[name]
        assert {e: float(row[e]) for e in EXERCISES} == shared_class().students[name]["scores"], row
        assert "refused the answer unread" in graded["feedback"][name]  # a 15 MB string: over the frame's string limit
    reports = [p for folder in slices for p in (folder / "results").glob("*.json")]
    assert max(p.stat().st_size for p in reports) <= 256 * 1024
    assert max(len(text.encode()) for text in graded["feedback"].values()) <= 64 * 1024
    assert len(graded["summary"].encode()) <= 1 << 20, "GitHub's step summary takes at most 1 MiB"
    without = tmp_path / "without"
    for folder in slices:
        shutil.copytree(folder, without / folder.name)
        for name in forgers:
            for path in (without / folder.name).rglob(f"{name}.*"):
                path.unlink()
    with_forger = _merge_peak_kb(slices, tmp_path / "merged")
    without_forger = _merge_peak_kb(sorted(without.iterdir()), tmp_path / "merged-without")
    print(f"merge peak memory: {with_forger} kB with the forger, {without_forger} kB without")
    assert with_forger <= 1.1 * without_forger
