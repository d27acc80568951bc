"""The reader of a submission's contract files (grader/tools/intake/commit_reader.py) and the token's one host.

* Every case of the repositories corpus, read at the commit its row must
  come from, over ``file://`` and over HTTP on loopback (git's own
  http-backend, Basic auth with a fake token), leaves out exactly the files
  its expect.toml names, for the reason it names; nothing reaches the
  listener the hostile repositories aim at, and the stand-in for GitHub
  gets the token.
* The LFS control: the same repository through the old ``git clone`` of
  grade-class.yml (an askpass answering any host, git-lfs's filter
  configured) delivers the token to the student's server, so the test can
  fail; through the reader, that server receives no request at all, with the
  filter configured or not.
* The token goes to no other host: not after a redirect, not to an LFS
  server, not through the caller's own git configuration.
* A server that ignores filters, one that never answers, a commit the
  server lacks: refused by size, given up after a bounded time, an error
  naming the commit.
* ``read_folder`` (``batch FOLDER``) takes regular files only, never follows
  a link (/proc/self/mem, /proc/kmsg, /proc/self/pagemap, a FIFO...), and the
  cache key is framed.
"""

from __future__ import annotations

import errno
import hashlib
import os
import shutil
import socket
import subprocess
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import pytest

from grader.engine.results import CheckResult, ExerciseResult, GradeResult
from grader.registry import CONTRACT_FILES, EXERCISES
from grader.tests.class_of_30 import shared_class
from grader.tests.git_http import USER, GitServer, Listener, basic
from grader.tests.repository_corpus import Context, build_case, case_names, load_expect
from grader.tools.class_grading.grade_class import grading_key
from grader.tools.intake import git_credential, git_transport
from grader.tools.intake.commit_reader import CONTRACT_FILE_MAX_BYTES, Intake, IntakeError, annotate, read_commit
from grader.tools.intake.folder_reader import read_folder

TOKEN = "ghs_fake_classroom_token_0123456789"
LFS_FILTER = ('[filter "lfs"]\n\tclean = git-lfs clean -- %f\n\tsmudge = git-lfs smudge -- %f\n'
              '\tprocess = git-lfs filter-process\n\trequired = true\n')
READABLE = [name for name in case_names() if "scores" in load_expect(name)]


@pytest.fixture(scope="module")
def klass():
    return shared_class()


@pytest.fixture(scope="module")
def github(klass):
    with GitServer(klass.server, TOKEN) as server:
        yield server


def _url(transport: str, klass, github, name: str) -> str:
    return f"{github.url}/course/{name}.git" if transport == "http" else (klass.server / "course" / f"{name}.git").as_uri()


@pytest.mark.slow
@pytest.mark.parametrize("transport", ["file", "http"])
@pytest.mark.parametrize("case", READABLE)
def test_each_repository_case_costs_only_its_own_files(case, transport, klass, github, tmp_path):
    """(That nothing reaches the server a hostile repository names is proven by the LFS control below and by the
    class of 30, which listens there while the whole class is graded.)"""
    student = klass.students[case]
    before = len(github.requests)
    intake = read_commit(_url(transport, klass, github, case), student["commit"], tmp_path / "files", token=TOKEN)
    assert intake.commit == student["commit"]
    left_out = {name.removesuffix(".py") for name in intake.problems}
    assert left_out == set(student["reasons"]), intake.problems
    for exercise, reason in student["reasons"].items():
        assert reason in intake.problems[f"{exercise}.py"], intake.problems
    assert sorted(intake.files) == sorted(f"{e}.py" for e in EXERCISES if e not in left_out)
    assert sorted(p.name for p in (tmp_path / "files").iterdir()) == sorted(intake.files)
    assert all(not p.is_symlink() and p.stat().st_size <= CONTRACT_FILE_MAX_BYTES for p in (tmp_path / "files").iterdir())
    for flag in student["flags"]:
        assert any(flag in note for note in intake.notes), intake.notes
    if transport == "http":
        asked = github.requests[before:]
        assert asked and all(r.authorization == basic(USER, TOKEN) for r in asked[1:]), "the stand-in for GitHub gets the token"


def test_an_oversized_blob_is_never_downloaded_and_refused_when_a_server_sends_it(klass, tmp_path):
    commit = klass.students["oversized_blob"]["commit"]
    for allow_filter in (True, False):
        with GitServer(klass.server, TOKEN, allow_filter=allow_filter) as server:
            intake = read_commit(f"{server.url}/course/oversized_blob.git", commit, tmp_path / str(allow_filter), token=TOKEN)
        sent = sum(r.sent for r in server.requests)
        assert "is larger than 1,000,000 bytes" in intake.problems["bucketing.py"]
        assert (sent < CONTRACT_FILE_MAX_BYTES) == allow_filter, f"{sent} bytes sent with filters allowed={allow_filter}"


# ---------------------------------------------------------------------------- the token's one host


def _lfs_repository(root: Path, listener: Listener) -> str:
    ctx = Context("course/lfs", "2026-12-01T23:59:00+00:00", listener.url, "someone")
    build_case("lfs_pointer", root / "course" / "lfs.git", ctx)
    return "course/lfs"


def _old_clone(url: str, dest: Path, home: Path) -> subprocess.CompletedProcess:
    """grade-class.yml's clone before the intake issue: an askpass answering any host, git-lfs's filter configured."""
    askpass, config = home / "classroom-askpass", home / "lfs.gitconfig"
    askpass.write_text('#!/bin/sh\ncase "$1" in\n  Username*) echo x-access-token ;;\n'
                       '  *) printf \'%s\\n\' "$CLASSROOM_TOKEN" ;;\nesac\n')
    askpass.chmod(0o700)
    config.write_text(LFS_FILTER)
    env = {"PATH": os.environ["PATH"], "HOME": str(home), "GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": str(config),
           "GIT_ASKPASS": str(askpass), "GIT_TERMINAL_PROMPT": "0", "CLASSROOM_TOKEN": TOKEN}
    try:
        return subprocess.run(["git", "-c", "credential.helper=", "clone", "--quiet", url, str(dest)], env=env,
                              capture_output=True, text=True, timeout=120)
    except subprocess.TimeoutExpired:
        return subprocess.CompletedProcess([], 124, "", "timed out")


@pytest.mark.skipif(shutil.which("git-lfs") is None, reason="git-lfs is not installed (.ci/setup installs it)")
def test_lfs_control_the_old_clone_hands_the_token_to_the_students_server_the_reader_does_not(tmp_path, monkeypatch):
    with Listener("127.0.0.3") as student_server:
        repository = _lfs_repository(tmp_path / "server", student_server)
        with GitServer(tmp_path / "server", TOKEN) as github:
            _old_clone(f"{github.url}/{repository}.git", tmp_path / "old", tmp_path)
            leaked = [r for r in student_server.requests if TOKEN in r.headers or basic(USER, TOKEN) == r.authorization]
            assert leaked, f"the control failed: the old clone did not reach the listener ({student_server.requests})"

            student_server.requests.clear()
            github.requests.clear()
            config = tmp_path / "lfs.gitconfig"  # the caller's git configures the LFS filter, and more
            monkeypatch.setenv("GIT_CONFIG_GLOBAL", str(config))
            monkeypatch.setenv("GIT_CONFIG_PARAMETERS", "'filter.lfs.smudge=git-lfs smudge -- %f' 'filter.lfs.required=true'")
            monkeypatch.setenv("GIT_ASKPASS", str(tmp_path / "classroom-askpass"))
            monkeypatch.setenv("CLASSROOM_TOKEN", TOKEN)
            intake = read_commit(f"{github.url}/{repository}.git", "main", tmp_path / "new", token=TOKEN)
    assert student_server.requests == [], "the reader must never reach lfs.url"
    assert "is a Git LFS pointer" in intake.problems["collate.py"] and len(intake.files) == 4
    assert any(r.authorization == basic(USER, TOKEN) for r in github.requests), "the stand-in for GitHub gets the token"


class _Redirect(BaseHTTPRequestHandler):
    target = ""

    def log_message(self, *args):
        pass

    def do_GET(self):
        self.send_response(302)
        self.send_header("Location", self.target + self.path)
        self.send_header("Content-Length", "0")
        self.end_headers()


def test_a_redirect_to_another_host_gets_no_token(tmp_path):
    with Listener("127.0.0.3") as elsewhere:
        handler = type("Redirect", (_Redirect,), {"target": elsewhere.url})
        server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            with pytest.raises(IntakeError, match="refused access"):
                read_commit(f"http://127.0.0.1:{server.server_address[1]}/course/x.git", "main", tmp_path / "f", token=TOKEN)
        finally:
            server.shutdown()
            server.server_close()
    assert elsewhere.requests, "git followed the redirect (the test would prove nothing otherwise)"
    assert elsewhere.carried_credentials() == [] and not any(TOKEN in r.headers for r in elsewhere.requests)


def test_the_callers_git_configuration_cannot_send_the_fetch_elsewhere(klass, github, tmp_path, monkeypatch):
    """url.<elsewhere>.insteadOf in the caller's environment would move the fetch to another server."""
    with Listener("127.0.0.3") as elsewhere:
        monkeypatch.setenv("GIT_CONFIG_COUNT", "1")
        monkeypatch.setenv("GIT_CONFIG_KEY_0", f"url.{elsewhere.url}/.insteadOf")
        monkeypatch.setenv("GIT_CONFIG_VALUE_0", f"{github.url}/")
        intake = read_commit(f"{github.url}/course/ada.git", klass.students["ada"]["commit"], tmp_path / "f", token=TOKEN)
    assert elsewhere.requests == [] and len(intake.files) == 5


@pytest.mark.parametrize("asked, answered", [
    ({"protocol": "https", "host": "github.com"}, True),
    ({"protocol": "https", "host": "github.com.evil.example"}, False),
    ({"protocol": "https", "host": "github.com:8443"}, False),
    ({"protocol": "http", "host": "github.com"}, False),
    ({"host": "github.com"}, False),
    ({"protocol": "https", "host": "lfs.student.example", "path": "github.com"}, False),
])
def test_the_credential_helper_answers_for_its_host_only(asked, answered):
    out, err = git_credential.answer("https", "github.com", "get", asked, TOKEN)
    assert (out == f"username=x-access-token\npassword={TOKEN}\n") == answered
    assert answered or (out == "" and "no credential for" in err)


def test_the_credential_helper_as_git_runs_it():
    """Through ``git credential fill`` with the reader's own options: a password for the server, none elsewhere."""
    home = Path(os.environ.get("TMPDIR", "/tmp"))
    options = git_transport.git_options("https://github.com/course/x.git", TOKEN)
    env = git_transport.git_environment(home, TOKEN)
    for host, expected in (("github.com", TOKEN), ("lfs.student.example", None)):
        done = subprocess.run(["git", *options, "credential", "fill"], input=f"protocol=https\nhost={host}\n\n",
                              capture_output=True, text=True, env=env, timeout=30)
        assert (f"password={expected}" in done.stdout) if expected else "password=" not in done.stdout, done
    assert not any(TOKEN in o for o in options), "the token is never on a command line"
    assert git_transport.git_options("http://github.com/x.git", TOKEN) == git_transport.git_options("http://github.com/x.git", None), \
        "no token over plain http to a host that is not loopback"
    assert git_credential.answer("https", "github.com", "store", {"protocol": "https", "host": "github.com"}, TOKEN) == ("", "")
    assert git_credential.answer("https", "github.com", "get", {"protocol": "https", "host": "github.com"}, "a\nb")[0] == ""


# ---------------------------------------------------------------------------- servers that misbehave


@pytest.mark.slow
def test_a_server_that_never_answers_is_given_up(tmp_path, monkeypatch):
    monkeypatch.setattr(git_transport, "LOW_SPEED_TIME_S", 1)
    monkeypatch.setattr(git_transport, "FETCH_TIMEOUT_S", 20.0)
    monkeypatch.setattr(git_transport, "RETRY_PAUSES_S", (0.1,))
    mute = socket.create_server(("127.0.0.1", 0))
    held = []
    threading.Thread(target=lambda: [held.append(mute.accept()) for _ in range(10)], daemon=True).start()
    started = time.monotonic()
    with pytest.raises(IntakeError, match=r"could not fetch main .*\(3 attempts\)"):
        read_commit(f"http://127.0.0.1:{mute.getsockname()[1]}/course/x.git", "main", tmp_path / "f", token=TOKEN)
    assert time.monotonic() - started < 100, "nothing hangs"
    assert len(held) == 3, "tried ATTEMPTS times, no more"
    mute.close()


def test_a_commit_the_server_lacks_is_an_error_naming_it(klass, github, tmp_path):
    with pytest.raises(IntakeError, match="the server has no commit 0123456789ab"):
        read_commit(f"{github.url}/course/ada.git", "0123456789abcdef0123456789abcdef01234567", tmp_path / "f", token=TOKEN)


@pytest.mark.parametrize("want", ["--upload-pack=touch pwned", "abc1234", "main branch", "", "a..b", "x:y"])
def test_a_want_that_is_no_commit_id_or_ref_is_refused_before_git_runs(want, tmp_path):
    with pytest.raises(IntakeError, match="neither a full 40-character commit id nor a branch or tag name"):
        read_commit((tmp_path / "nowhere").as_uri(), want, tmp_path / "f")


def test_exercises_that_is_a_link_in_the_commit_is_the_students_error(tmp_path):
    from grader.tests.gitrepos import Link, Repository

    repo = Repository(tmp_path / "x.git")
    repo.commit({"exercises": Link("/proc/self/cwd/solutions"), "collate.py": b"x = 1\n"})
    with pytest.raises(IntakeError, match="exercises is a symbolic link in the submitted commit, not a folder"):
        read_commit(repo.path.as_uri(), "main", tmp_path / "f")


# ---------------------------------------------------------------------------- batch FOLDER


def _folder_with_everything_wrong(root: Path) -> Path:
    folder = root / "mallory" / "exercises"
    folder.mkdir(parents=True)
    (root / "alice" / "exercises").mkdir(parents=True)
    (root / "alice" / "exercises" / "bucketing.py").write_text("# alice's own work\n")
    (folder / "collate.py").symlink_to("/proc/self/mem")
    (folder / "sharding.py").symlink_to("/proc/kmsg")
    (folder / "seeding.py").symlink_to("/proc/self/pagemap")
    (folder / "bucketing.py").symlink_to("../../alice/exercises/bucketing.py")
    os.mkfifo(folder / "tokens.py")
    return folder.parent


def test_read_folder_never_follows_a_link_nor_blocks(tmp_path):
    intake = read_folder(_folder_with_everything_wrong(tmp_path), tmp_path / "files")
    assert intake.files == ()
    for name in CONTRACT_FILES[:4]:  # collate, sharding, seeding, bucketing: links; tokens: a FIFO
        assert intake.problems[name] == f"exercises/{name} is a symbolic link: submit the file itself"
    assert "is not a regular file" in intake.problems["tokens.py"]
    assert list((tmp_path / "files").iterdir()) == []


def test_read_folder_takes_regular_files_under_the_cap(tmp_path):
    folder = tmp_path / "student"
    folder.mkdir()
    (folder / "collate.py").write_bytes(b"x = 1\n")
    (folder / "sharding.py").write_bytes(b"#" * (CONTRACT_FILE_MAX_BYTES + 1))
    (folder / "seeding.py").mkdir()
    (folder / "bucketing.py").write_bytes(b"version https://git-lfs.github.com/spec/v1\noid sha256:00\nsize 1\n")
    (folder / "Tokens.py").write_bytes(b"x = 2\n")
    intake = read_folder(folder, tmp_path / "files")
    assert intake.files == ("collate.py",) and (tmp_path / "files" / "collate.py").read_bytes() == b"x = 1\n"
    assert "is larger than 1,000,000 bytes" in intake.problems["sharding.py"]
    assert "is not a regular file" in intake.problems["seeding.py"]
    assert "is a Git LFS pointer" in intake.problems["bucketing.py"]
    assert intake.problems["tokens.py"].startswith("tokens.py is missing from the submission (there is Tokens.py")
    assert intake.missing == ("tokens.py",)


def test_read_folder_refuses_a_linked_folder(tmp_path):
    (tmp_path / "student").mkdir()
    (tmp_path / "student" / "exercises").symlink_to("/proc/self/cwd/solutions")
    (tmp_path / "linked").symlink_to(tmp_path / "student")
    with pytest.raises(IntakeError, match=r"exercises is a symbolic link \(to /proc/self/cwd/solutions\)"):
        read_folder(tmp_path / "student", tmp_path / "a")
    with pytest.raises(IntakeError, match="cannot be opened"):
        read_folder(tmp_path / "linked", tmp_path / "b")


def test_read_folder_turns_a_read_error_into_that_files_problem(tmp_path, monkeypatch):
    folder = tmp_path / "student"
    folder.mkdir()
    for name in CONTRACT_FILES:
        (folder / name).write_text("x = 1\n")
    real_read = os.read

    def failing(fd, n):
        if os.readlink(f"/proc/self/fd/{fd}").endswith("seeding.py"):
            raise OSError(errno.EIO, "Input/output error")
        return real_read(fd, n)

    monkeypatch.setattr(os, "read", failing)
    intake = read_folder(folder, tmp_path / "files")
    assert intake.problems == {"seeding.py": "seeding.py could not be read (Input/output error)"} and len(intake.files) == 4


def _unframed_key(folder: Path, seed: int) -> str:
    """The cache key before the intake issue: names and bytes concatenated."""
    digest = hashlib.sha256(f"seed={seed}".encode())
    for name in CONTRACT_FILES:
        path = folder / name
        digest.update(name.encode() + (path.read_bytes() if path.is_file() else b"<missing>"))
    return digest.hexdigest()


def test_the_cache_key_is_framed(tmp_path):
    """Two different submissions with one unframed key (first file "X<second>Y" and second "Z", or first "X" and
    second "Y<second>Z": both "<first>X<second>Y<second>Z") get two keys."""
    first, second = CONTRACT_FILES[:2]
    a, b = tmp_path / "a", tmp_path / "b"
    for folder, one, two in ((a, b"X" + second.encode() + b"Y", b"Z"), (b, b"X", b"Y" + second.encode() + b"Z")):
        folder.mkdir()
        (folder / first).write_bytes(one)
        (folder / second).write_bytes(two)
    assert _unframed_key(a, 0) == _unframed_key(b, 0), "the old key collides (the test would prove nothing otherwise)"
    both = Intake(files=(first, second))
    assert grading_key(a, 0, both) != grading_key(b, 0, both)
    assert grading_key(a, 0, both) == grading_key(a, 0, Intake(files=(first, second)))
    assert grading_key(a, 0, both) != grading_key(a, 1, both)
    refused = Intake(files=(first,), problems={second: f"exercises/{second} is a symbolic link"})
    assert grading_key(a, 0, refused) != grading_key(a, 0, both)


def test_annotate_names_the_file_and_why_in_the_result():
    note = "collate.py is missing from the submission"
    checks = [CheckResult("a", "collate", "failed", 0, 3, message=note), CheckResult("b", "collate", "failed", 0, 2, message=note)]
    result = GradeResult([ExerciseResult("collate", checks, note=note),
                          ExerciseResult("tokens", [CheckResult("c", "tokens", "passed", 1, 1)])], seed=0, duration_s=1,
                         integrity_flags=["ignored extra file conftest.py in the submission"])
    why = "exercises/collate.py is a symbolic link in the submitted commit: commit the file itself"
    intake = Intake(files=("tokens.py",), problems={"collate.py": why}, missing=("bucketing.py",),
                    notes=["exercises/Tokens.py beside exercises/tokens.py"])
    intake.problems["bucketing.py"] = "exercises/bucketing.py is missing"
    annotate(result, intake)
    assert result.exercise("collate").note == why and all(c.message == why for c in result.exercise("collate").checks)
    assert result.integrity_flags == [f"not graded: {why}", "exercises/Tokens.py beside exercises/tokens.py",
                                      "ignored extra file conftest.py in the submission"]
    assert result.exercise("tokens").checks[0].message == "" and result.score == 1
