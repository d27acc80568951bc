"""``python -m grader record-submissions`` against a stand-in ``gh`` replaying recorded answers, hostile ones included.

Only pushes to the default branch (or Classroom 50 submissions) count; every
answer is checked for its documented shape; a bad answer is that
repository's entry without a commit, saying what was wrong, and never stops
the record of the others.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from datetime import datetime
from pathlib import Path

import pytest

from grader.paths import REPO
from grader.tests import stub_gh
from grader.tools.intake import deadline_record as rs
from grader.tools.intake import github_api

DEADLINE = "2026-12-01T23:59:00+00:00"
A, B, C = "a" * 40, "b" * 40, "c" * 40
ACTIVITY = "repos/course/{}/activity?ref=refs%2Fheads%2F{}&per_page=100"


def release(tag: str, published: str | None, draft: bool = False) -> dict:
    """A Release as GitHub lists it: ``published_at`` is the server's time (``created_at`` is the commit's date)."""
    return {"tag_name": tag, "draft": draft, "created_at": "2026-11-01T00:00:00Z", "published_at": published}


def push(sha: str, when: str, ref: str = "refs/heads/main", kind: str = "push") -> dict:
    return {"activity_type": kind, "ref": ref, "after": sha, "before": "0" * 40, "timestamp": when}


def honest(name: str, pushes: list[dict], branch: str = "main") -> dict:
    return {f"repos/course/{name}": {"default_branch": branch}, f"repos/course/{name}/releases?per_page=100": [],
            ACTIVITY.format(name, branch): pushes}


@pytest.fixture
def gh(tmp_path, monkeypatch):
    """Install the stand-in gh; returns (answers dict to fill, a function reading the calls made)."""
    stub_gh.install(tmp_path / "bin")
    answers: dict = {}
    path, log = tmp_path / "answers.json", tmp_path / "gh.log"
    monkeypatch.setenv("PATH", f"{tmp_path / 'bin'}:{os.environ['PATH']}")
    monkeypatch.setenv("STUB_GH_ANSWERS", str(path))
    monkeypatch.setenv("STUB_GH_LOG", str(log))
    monkeypatch.setattr(github_api, "GH_RETRY_PAUSE_S", 0.0)

    def calls() -> list[list[str]]:
        return [json.loads(line) for line in log.read_text().splitlines()] if log.exists() else []

    def save() -> None:
        path.write_text(json.dumps(answers))

    return answers, save, calls


def record(repository: str) -> rs.Submission:
    return rs.record_all([repository], datetime.fromisoformat(DEADLINE), log=lambda line: None)[0]


def test_only_pushes_to_the_default_branch_count(gh):
    answers, save, calls = gh
    answers.update(honest("ada", [push(A, "2026-11-30T10:00:00Z"), push(B, "2026-12-01T10:00:00Z", "refs/heads/wip"),
                                  push(C, "2026-12-02T10:00:00Z")], branch="trunk"))
    answers["repos/course/ada"] = {"default_branch": "trunk"}
    answers[ACTIVITY.format("ada", "trunk")] = [push(A, "2026-11-30T10:00:00Z", "refs/heads/trunk"),
                                                push(B, "2026-12-01T10:00:00Z", "refs/heads/wip"),
                                                push(C, "2026-12-02T10:00:00Z", "refs/heads/trunk")]
    save()
    found = record("course/ada")
    assert (found.commit, found.source) == (A, "push to refs/heads/trunk"), found
    assert ["api", "--paginate", "--slurp", "-H", "Accept: application/vnd.github+json",
            "repos/course/ada/activity?ref=refs%2Fheads%2Ftrunk&per_page=100"] in calls()


def test_a_force_push_counts_and_a_branch_deletion_does_not(gh):
    answers, save, _ = gh
    answers.update(honest("bob", [push(A, "2026-11-30T10:00:00Z"), push(B, "2026-11-30T11:00:00Z", kind="force_push"),
                                  push("0" * 40, "2026-11-30T12:00:00Z")]))
    save()
    assert record("course/bob").commit == B


def test_a_classroom50_submission_through_an_annotated_tag(gh):
    answers, save, _ = gh
    answers.update(honest("cat", [push(A, "2026-12-01T20:00:00Z")]))
    answers["repos/course/cat/releases?per_page=100"] = [release("submit/1", "2026-12-01T18:00:00Z"),
                                                         release("v1", "2026-12-01T18:30:00Z")]
    answers["repos/course/cat/git/ref/tags/submit/1"] = {"object": {"sha": C, "type": "tag"}}
    answers[f"repos/course/cat/git/tags/{C}"] = {"object": {"sha": B, "type": "commit"}}
    answers[f"repos/course/cat/compare/{B}...{A}"] = {"status": "ahead"}  # B was pushed to main before A
    save()
    found = record("course/cat")
    assert (found.commit, found.server_time, found.source) == (
        B, "2026-12-01T18:00:00Z", "classroom50 release submit/1 (on refs/heads/main at the deadline)")


def test_a_late_tag_or_a_tag_on_another_branch_never_moves_the_record(gh):
    """The third red team: ``submit/`` tags and Releases on a commit pushed before the deadline only to ``wip``, one
    published before the deadline and one after (on the fake gh, its workflow runs date from before the deadline
    too, which main took as the time): the record is the default branch's head at the deadline."""
    answers, save, calls = gh
    answers.update(honest("eve", [push(A, "2026-12-01T20:00:00Z")]))
    answers["repos/course/eve/releases?per_page=100"] = [release("submit/late", "2026-12-02T09:00:00Z"),
                                                         release("submit/wip", "2026-12-01T21:00:00Z"),
                                                         release("submit/draft", None, draft=True)]
    for tag in ("late", "wip", "draft"):
        answers[f"repos/course/eve/git/ref/tags/submit/{tag}"] = {"object": {"sha": C, "type": "commit"}}
    answers[f"repos/course/eve/actions/runs?head_sha={C}&per_page=100"] = {
        "workflow_runs": [{"created_at": "2026-12-01T12:00:00Z", "head_branch": "wip", "event": "push"}]}
    answers[f"repos/course/eve/compare/{C}...{A}"] = {"status": "diverged"}  # C is only on wip
    save()
    found = record("course/eve")
    assert (found.commit, found.server_time, found.source) == (A, "2026-12-01T20:00:00Z", "push to refs/heads/main"), found
    asked = [c[-1] for c in calls()]
    assert f"repos/course/eve/compare/{C}...{A}" in asked and "repos/course/eve/git/ref/tags/submit/late" not in asked


HOSTILE = {
    "repository answer is a list": ({"repos/course/eve": [{"default_branch": "main"}]},
                                    "GitHub's answer to repos/course/eve is a list, not an object"),
    "no default branch": ({"repos/course/eve": {"name": "eve"}}, "has no default_branch of type str"),
    "default branch git forbids": ({"repos/course/eve": {"default_branch": "main..x"}}, "is not a ref name git allows"),
    "activity is an object": ({ACTIVITY.format("eve", "main"): {"message": "Not Found"}}, "is an object, not a list"),
    "activity entry a string": ({ACTIVITY.format("eve", "main"): ["push"]}, "is a string, not an object"),
    "after is an option": ({ACTIVITY.format("eve", "main"): [push("--upload-pack=touch pwned", "2026-11-30T10:00:00Z")]},
                           "a commit id that is not 40 hex digits"),
    "time without zone": ({ACTIVITY.format("eve", "main"): [push(A, "2026-11-30T10:00:00")]}, "not ISO 8601 with a zone"),
    "releases page an object": ({"repos/course/eve/releases?per_page=100": {"message": "Not Found"}}, "is an object, not a list"),
    "tag ref is a list": ({"repos/course/eve/releases?per_page=100": [release("submit/x", "2026-11-30T11:00:00Z")],
                           "repos/course/eve/git/ref/tags/submit/x": [{"ref": "refs/tags/submit/x"}]}, "is a list, not an object"),
    "tag names a tree": ({"repos/course/eve/releases?per_page=100": [release("submit/x", "2026-11-30T11:00:00Z")],
                          "repos/course/eve/git/ref/tags/submit/x": {"object": {"sha": A, "type": "tree"}}}, "names a tree"),
    "tag name git forbids": ({"repos/course/eve/releases?per_page=100": [release("submit/a b?c", "2026-11-30T11:00:00Z")]},
                             "is not a ref name git allows"),
    "not JSON": ({"repos/course/eve": {"__gh__": {"stdout": "<html>rate limited</html>"}}}, "is not JSON"),
    "gh fails": ({"repos/course/eve": {"__gh__": {"exit": 1, "stderr": "gh: Bad credentials (HTTP 401)"}}},
                 "gh api repos/course/eve: gh: Bad credentials (HTTP 401)"),
}


@pytest.mark.parametrize("name", list(HOSTILE))
def test_a_bad_answer_is_that_repositorys_error_row(gh, name):
    answers, save, _ = gh
    answers.update(honest("eve", [push(A, "2026-11-30T10:00:00Z")]))
    bad, message = HOSTILE[name]
    answers.update(bad)
    save()
    found = record("course/eve")
    assert found.commit == "" and found.source.startswith("could not ask GitHub: ") and message in found.source, found


def test_a_transient_failure_is_retried_a_bounded_number_of_times(gh):
    answers, save, calls = gh
    answers["repos/course/eve/releases?per_page=100"] = {"__gh__": {"exit": 1, "stderr": "gh: HTTP 502: Bad Gateway"}}
    save()
    found = record("course/eve")
    assert "HTTP 502" in found.source and f"({github_api.GH_ATTEMPTS} attempts)" in found.source
    assert len(calls()) == github_api.GH_ATTEMPTS


@pytest.mark.slow
def test_one_bad_repository_never_stops_the_record(gh, tmp_path):
    """The command line, as grade-slice.sh runs it: every repository has an entry, the good ones their commit."""
    answers, save, _ = gh
    answers.update(honest("ada", [push(A, "2026-11-30T10:00:00Z")]))
    answers.update(honest("bob", [push(B, "2026-11-30T10:00:00Z")]))
    answers["repos/course/eve/releases?per_page=100"] = "not a list of pages"
    save()
    out = tmp_path / "record.json"
    def run(*names):
        return subprocess.run([sys.executable, "-m", "grader", "record-submissions", *names, "--deadline", DEADLINE,
                               "--out", str(out)], cwd=REPO, capture_output=True, text=True, timeout=120)

    done = run("course/ada", "course/eve", "course/bob")
    assert done.returncode == 0, done.stderr
    entries = {e["repository"]: e for e in json.loads(out.read_text())["submissions"]}
    assert entries["course/ada"]["commit"] == A and entries["course/bob"]["commit"] == B
    assert entries["course/eve"]["commit"] == "" and "is a string, not a list" in entries["course/eve"]["source"]
    assert set(rs.read_record(out)) == {"ada", "bob", "eve"}
    refused = run("course/ada", "not/a/repo")
    assert refused.returncode == 2 and "'not/a/repo' is not owner/name" in refused.stderr


@pytest.mark.parametrize("entry, message", [
    ({"repository": "course/x", "commit": "--upload-pack=touch pwned", "server_time": "", "source": ""}, "not 40 hex digits"),
    ({"repository": "../x", "commit": "", "server_time": "", "source": ""}, "is not owner/name"),
    ({"repository": "course/x", "commit": 7, "server_time": "", "source": ""}, "is not owner/name"),
])
def test_a_record_batch_reads_never_hands_git_anything_but_a_commit_id(tmp_path, entry, message):
    path = tmp_path / "record.json"
    path.write_text(json.dumps({"deadline": DEADLINE, "submissions": [entry]}))
    with pytest.raises(ValueError, match=message):
        rs.read_record(Path(path))
