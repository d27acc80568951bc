"""`python -m grader batch` and `merge`: a small class of stubs, partial work and git checkouts."""

import csv
import io
import json
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.paths import REPO
from grader.registry import CONTRACT_FILES

FILES = CONTRACT_FILES


def copy_files(source, dest, names=FILES):
    dest.mkdir(parents=True, exist_ok=True)
    for name in names:
        shutil.copy(source / name, dest / name)


def git(folder, *args, date=None):
    env = {**os.environ, "GIT_AUTHOR_NAME": "s", "GIT_AUTHOR_EMAIL": "s@example.com",
           "GIT_COMMITTER_NAME": "s", "GIT_COMMITTER_EMAIL": "s@example.com"}
    if date:
        env.update(GIT_AUTHOR_DATE=date, GIT_COMMITTER_DATE=date)
    subprocess.run(["git", "-C", str(folder), *args], check=True, env=env, capture_output=True)


@pytest.fixture(scope="module")
def klass(tmp_path_factory):
    """stub: the stubs; partial: only collate done; late: a checkout whose solution came after the deadline."""
    root = tmp_path_factory.mktemp("class")
    copy_files(REPO / "exercises", root / "stub")
    copy_files(REPO / "exercises", root / "partial")
    shutil.copy(REPO / "solutions" / "collate.py", root / "partial" / "collate.py")
    late = root / "late"
    copy_files(REPO / "exercises", late / "exercises")
    git(late, "init", "-q")
    git(late, "add", "-A")
    git(late, "commit", "-qm", "start", date="2026-11-01T10:00:00+00:00")
    shutil.copy(REPO / "solutions" / "collate.py", late / "exercises" / "collate.py")
    git(late, "commit", "-qam", "too late", date="2026-11-03T10:00:00+00:00")
    return root


def server_record(path: Path, deadline: str, commits: dict[str, str]) -> Path:
    """A record as record-submissions writes it: the commit each student's repository held at the deadline."""
    entries = [{"repository": f"course/{student}", "commit": commit, "server_time": "2026-11-01T10:00:05Z",
                "source": "push to refs/heads/main"} for student, commit in commits.items()]
    path.write_text(json.dumps({"deadline": deadline, "submissions": entries}))
    return path


def head(folder, rev="HEAD"):
    return subprocess.run(["git", "-C", str(folder), "rev-parse", rev], capture_output=True, text=True, check=True).stdout.strip()


def batch(*args):
    return subprocess.run([sys.executable, "-m", "grader", "batch", *map(str, args)], cwd=REPO,
                          capture_output=True, text=True, timeout=600)


def gradebook(out):
    return {row["student"]: row for row in csv.DictReader(io.StringIO((out / "gradebook.csv").read_text()))}


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_batch_grades_each_student_and_honours_the_deadline(klass, tmp_path):
    """late's second commit reached the server after the deadline: the record (server times) says so, and
    batch grades the first commit; students without history are graded as they are."""
    out, deadline = tmp_path / "out", "2026-11-02T00:00:00+00:00"
    record = server_record(tmp_path / "record.json", deadline, {"late": head(klass / "late", "HEAD~1")})
    proc = batch(klass, "--out", out, "--jobs", "2", "--deadline", deadline, "--server-record", record)
    assert proc.returncode == 0, proc.stderr
    book = gradebook(out)
    assert set(book) == {"stub", "partial", "late"}
    assert book["stub"]["status"] == "grader error" and "no entry for this student" in book["stub"]["error"]
    assert book["late"]["collate"] == "0", "the commit after the deadline must not count"
    assert book["late"]["commit"] == head(klass / "late", "HEAD~1") and book["late"]["server_time"] == "2026-11-01T10:00:05Z"
    assert "--deadline and --server-record go together" in batch(klass, "--out", out, "--deadline", deadline).stderr
    proc = batch(klass, "--out", out, "--jobs", "2")  # no deadline: every folder as it is
    book = gradebook(out)
    assert book["stub"]["score"] == "0" and book["partial"]["collate"] == "20" and book["partial"]["score"] == "20"
    for student in book:
        assert (out / "results" / f"{student}.json").is_file() and (out / "feedback" / f"{student}.md").is_file()
    assert "Students: 3" in (out / "summary.md").read_text()

    assert book["late"]["collate"] == "20" and proc.returncode == 0  # late's newest commit
    again = batch(klass, "--out", out)
    assert again.returncode == 0
    assert gradebook(out)["stub"]["duration_s"] == book["stub"]["duration_s"], "unchanged students are not graded again"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_merge_combines_slices(klass, tmp_path):
    slices = []
    for i, student in enumerate(("stub", "partial")):
        part = tmp_path / f"slice{i}"
        copy_files(klass / student, part / "in" / student)
        assert batch(part / "in", "--out", part / "out").returncode == 0
        slices.append(part / "out")
    proc = subprocess.run([sys.executable, "-m", "grader", "merge", *map(str, slices), "--out", str(tmp_path / "all")],
                          cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 0, proc.stderr
    assert set(gradebook(tmp_path / "all")) == {"stub", "partial"}
    assert (tmp_path / "all" / "feedback" / "partial.md").is_file()


def test_a_student_the_grader_cannot_grade_gets_an_error_row(tmp_path):
    (tmp_path / "in" / "nohistory").mkdir(parents=True)
    git(tmp_path / "in" / "nohistory", "init", "-q")  # a checkout without the commit the server held
    deadline = "2026-11-02T00:00:00+00:00"
    record = server_record(tmp_path / "record.json", deadline, {"nohistory": "0123456789abcdef0123456789abcdef01234567"})
    proc = batch(tmp_path / "in", "--out", tmp_path / "out", "--deadline", deadline, "--server-record", record)
    assert proc.returncode == 0, proc.stderr
    row = gradebook(tmp_path / "out")["nohistory"]
    assert row["status"] == "grader error" and "the checkout has no commit 0123456789ab" in row["error"]


@pytest.mark.parametrize("args, message", [
    (["no/such/folder", "--out", "x"], "does not exist"),
    (["grader", "--out", "x", "--deadline", "next friday"], "ISO 8601"),
    (["grader", "--out", "x", "--jobs", "0"], "at least 1"),
])
def test_bad_batch_arguments_exit_2(args, message):
    proc = batch(*args)
    assert proc.returncode == 2 and message in proc.stderr
