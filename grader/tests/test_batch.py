"""`python -m grader batch` on local folders: a hostile folder is one row, a deadline reads a checkout's commit.

The class of 30 (test_class_of_30.py) grades recorded commits fetched from a
server, through the class workflow's own scripts, and merges the slices.
"""

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
    """alice: the stubs; mallory: five links (/proc/self/mem, /proc/kmsg, /proc/self/pagemap, alice's file,
    /etc/shadow); late: a checkout whose solution came after the deadline."""
    root = tmp_path_factory.mktemp("class")
    copy_files(REPO / "exercises", root / "alice" / "exercises")
    mallory = root / "mallory" / "exercises"
    mallory.mkdir(parents=True)
    for name, target in zip(FILES, ("/proc/self/mem", "/proc/kmsg", "/proc/self/pagemap",
                                    "../../alice/exercises/bucketing.py", "/etc/shadow")):
        (mallory / name).symlink_to(target)
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
def test_batch_grades_each_folder_and_a_hostile_one_is_only_its_own_row(klass, tmp_path):
    """Before the intake issue a link to /proc/self/mem stopped the whole batch (EIO in grading_key) and one to
    /proc/kmsg blocked it; now mallory is a row whose flags name each file, and everyone is graded."""
    out = tmp_path / "out"
    proc = batch(klass, "--out", out, "--jobs", "2")
    assert proc.returncode == 0, proc.stderr
    book = gradebook(out)
    assert set(book) == {"alice", "mallory", "late"} and all(r["status"] == "graded" for r in book.values()), book
    assert book["alice"]["score"] == "0" and book["late"]["collate"] == "20" and book["late"]["score"] == "20"
    assert book["mallory"]["score"] == "0"
    for name in FILES:
        assert f"not graded: exercises/{name} is a symbolic link: submit the file itself" in book["mallory"]["integrity_flags"]
    assert "exercises/collate.py is a symbolic link: submit the file itself" in (out / "feedback" / "mallory.md").read_text()
    for student in book:
        assert (out / "results" / f"{student}.json").is_file() and (out / "feedback" / f"{student}.md").is_file()
    assert "Students: 3" in (out / "summary.md").read_text()


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_batch_honours_the_deadline_on_local_checkouts(klass, tmp_path):
    """late's second commit reached the server after the deadline: the record (server times) says so, and batch
    reads the first commit from the checkout over file:// into a fresh repository (the checkout is not touched)."""
    out, deadline = tmp_path / "out", "2026-11-02T00:00:00+00:00"
    first = head(klass / "late", "HEAD~1")
    record = server_record(tmp_path / "record.json", deadline, {"late": first, "mallory": first})
    proc = batch(klass, "--out", out, "--jobs", "2", "--deadline", deadline, "--server-record", record)
    assert proc.returncode == 0, proc.stderr
    book = gradebook(out)
    assert set(book) == {"alice", "mallory", "late"}
    assert book["alice"]["status"] == "grader error" and "no entry for this student" in book["alice"]["error"]
    assert book["mallory"]["status"] == "grader error" and "the checkout has no git repository at file:" in book["mallory"]["error"]
    assert book["late"]["collate"] == "0", "the commit after the deadline must not count"
    assert book["late"]["commit"] == first and book["late"]["server_time"] == "2026-11-01T10:00:05Z"
    assert head(klass / "late") != first, "the checkout is left as it was"
    assert "--deadline and --server-record go together" in batch(klass, "--out", out, "--deadline", deadline).stderr
    again = batch(klass, "--out", out, "--deadline", deadline, "--server-record", record)
    assert again.returncode == 0
    assert gradebook(out)["late"]["duration_s"] == book["late"]["duration_s"], "unchanged students are not graded again"


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
    (["--out", "x"], "give a SUBMISSIONS folder, or --from-server"),
    (["grader", "--out", "x", "--from-server", "https://github.com"], "either a SUBMISSIONS folder or --from-server"),
    (["--out", "x", "--from-server", "https://github.com"], "give --deadline and --server-record"),
    (["--out", "x", "--from-server", "https://x-access-token:t@github.com", "--server-record", "r"], "no credentials in it"),
])
def test_bad_batch_arguments_exit_2(args, message):
    proc = batch(*args)
    assert proc.returncode == 2 and message in proc.stderr
