"""What was on the server at the deadline: ``python -m grader record-submissions``.

A commit's date is written by the student's machine (``git commit --date``),
so a deadline judged by commit dates can be forged. This module asks GitHub
instead, whose times the student cannot set, and writes a *server record*:
for each student repository, the commit to grade and the server time that
makes it the submission at the deadline. ``batch --deadline --server-record``
grades exactly those commits.

One rule for every host: **a submission counts only if its commit was on the
default branch at the deadline, by the server's time**. What the branch held
is read from the pushes to it (asked of GitHub: ``default_branch``; the
repository activity API, asked for that branch's ref and checked again entry
by entry: ``ref`` must be ``refs/heads/<default branch>``): each push has a
server ``timestamp`` and the commit it moved the branch to (``after``). The
head at the deadline is the ``after`` of the newest push at or before it. A
push to any other branch never counts.

* **Pushes**: the head of the default branch at the deadline.
* **Classroom 50 submissions** (``submit/...`` tags with a published
  Release) choose among the commits of that branch: a Release counts only if
  GitHub published it at or before the deadline (``published_at``, the
  server's time; ``created_at`` is the commit's date, and a tag has no time
  at all) and its tag's commit is the head at the deadline or an ancestor of
  it (GitHub's compare API: ``identical`` or ``ahead``). The newest such
  Release wins over the head. A tag or Release made after the deadline, or on
  a commit only another branch held, never moves the record (issue 31: a
  late ``submit/`` tag on a commit pushed to ``wip``).

A repository with no push to its default branch by the deadline gets an
entry without a commit, and batch reports it.

Every answer of the API is checked for the shape GitHub documents (:mod:`grader.tools.intake.github_api`: an
object or a list, the keys used, their types, commit ids of 40 hex digits,
times with a zone). A repository whose answers are not (a crafted tag name,
an error page, a non-object) gets an entry without a commit that says what
was wrong; the record of the other repositories goes on. Each ``gh`` call
has a timeout and is retried a bounded number of times after a transient
failure.
"""

from __future__ import annotations

import json
import re
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path
from urllib.parse import quote

from grader.tools.intake.github_api import SHA, AnswerError, expect_object, expect_sha, expect_time, gh_api, parse_time, ref_path

__all__ = ["Submission", "AnswerError", "parse_time", "record", "record_all", "read_record", "write_record",
           "latest_push", "latest_release"]

REPOSITORY = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+")


@dataclass(frozen=True)
class Submission:
    """The commit of one repository at the deadline, and the server time that says so."""

    repository: str
    commit: str  # "" when nothing was submitted before the deadline
    server_time: str  # ISO 8601, from GitHub
    source: str  # "classroom50 release submit/..." or "push to refs/heads/main"


# ---------------------------------------------------------------------------- asking GitHub


def default_branch(repository: str) -> str:
    path = f"repos/{repository}"
    branch = expect_object(gh_api(path), path, default_branch=str)["default_branch"]
    ref_path(branch)
    return branch


def pushes(repository: str, branch: str) -> list[dict]:
    """The activity entries of pushes to ``branch`` (the API is asked for that ref only, and each entry is checked)."""
    ref = f"refs/heads/{branch}"
    path = f"repos/{repository}/activity?ref={quote(ref, safe='')}&per_page=100"
    found = []
    for entry in gh_api(path, pages=True):
        entry = expect_object(entry, path, activity_type=str, ref=str, after=str, timestamp=str)
        if entry["ref"] != ref or entry["activity_type"] not in ("push", "force_push"):
            continue
        if entry["after"] == "0" * 40:
            continue  # the branch was deleted: no commit
        found.append({"after": expect_sha(entry["after"], path), "timestamp": expect_time(entry["timestamp"], path),
                      "ref": ref})
    return found


def submissions(repository: str, deadline: datetime) -> list[tuple[str, str, str]]:
    """(tag, commit, published_at) of every ``submit/`` Release GitHub published at or before ``deadline``."""
    path = f"repos/{repository}/releases?per_page=100"
    releases = [expect_object(r, path, tag_name=str) for r in gh_api(path, pages=True)]
    found = []
    for release in releases:
        tag = release["tag_name"]
        if not tag.startswith("submit/") or release.get("draft") or release.get("published_at") is None:
            continue  # a draft is not published, and has no server time
        published = expect_time(release["published_at"], path)
        if parse_time(published) <= deadline:
            found.append((tag, tag_commit(repository, tag), published))
    return found


def on_branch_at(repository: str, commit: str, head: str) -> bool:
    """Whether ``commit`` is ``head`` or an ancestor of it (GitHub's compare of the two)."""
    if commit == head:
        return True
    path = f"repos/{repository}/compare/{commit}...{head}"
    status = expect_object(gh_api(path), path, status=str)["status"]
    return status in ("ahead", "identical")


def tag_commit(repository: str, tag: str) -> str:
    """The commit a tag names (through one annotated tag object if need be)."""
    path = f"repos/{repository}/git/ref/tags/{ref_path(tag)}"
    target = expect_object(expect_object(gh_api(path), path, object=dict)["object"], path, sha=str, type=str)
    if target["type"] == "tag":
        path = f"repos/{repository}/git/tags/{expect_sha(target['sha'], path)}"
        target = expect_object(expect_object(gh_api(path), path, object=dict)["object"], path, sha=str, type=str)
    if target["type"] != "commit":
        raise AnswerError(f"the tag {tag[:80]!r} names a {target['type'][:20]}, not a commit")
    return expect_sha(target["sha"], path)


# ---------------------------------------------------------------------------- deciding


def latest_push(repository: str, pushes: list[dict], deadline: datetime) -> Submission | None:
    """The newest push (checked activity entries, see :func:`pushes`) at or before ``deadline``."""
    best = None
    for push in pushes:
        when = parse_time(push["timestamp"])
        if when <= deadline and (best is None or when > parse_time(best["timestamp"])):
            best = push
    if best is None:
        return None
    return Submission(repository, best["after"], best["timestamp"], f"push to {best['ref']}")


def latest_release(repository: str, published: list[tuple[str, str, str]], head: Submission) -> Submission | None:
    """The newest Classroom 50 submission (``published``: see :func:`submissions`) whose commit the default
    branch held at the deadline (``head``: its newest push by then)."""
    for tag, commit, when in sorted(published, key=lambda r: parse_time(r[2]), reverse=True):
        if on_branch_at(repository, commit, head.commit):
            return Submission(repository, commit, when, f"classroom50 release {tag} (on {head.source[8:]} at the deadline)")
    return None


def record(repository: str, deadline: datetime) -> Submission:
    """Ask GitHub what ``repository`` held at ``deadline``; AnswerError for an answer of the wrong shape."""
    if not REPOSITORY.fullmatch(repository):
        raise AnswerError(f"{repository[:80]!r} is not owner/name")
    published = submissions(repository, deadline)
    head = latest_push(repository, pushes(repository, default_branch(repository)), deadline)
    if head is None:
        return Submission(repository, "", "", "nothing pushed to the default branch before the deadline")
    return latest_release(repository, published, head) or head


def record_all(repositories: list[str], deadline: datetime, log=print) -> list[Submission]:
    """One Submission per repository; a repository GitHub's answers fail for gets one without a commit, saying why."""
    found = []
    for repository in repositories:
        try:
            found.append(record(repository, deadline))
        except Exception as exc:  # whatever one repository's answers do, the others are still recorded
            reason = exc if isinstance(exc, AnswerError) else f"{type(exc).__name__}: {exc}"
            found.append(Submission(repository, "", "", f"could not ask GitHub: {reason}"[:400]))
        entry = found[-1]
        log(f"{repository}: {entry.commit[:12] or '-'} {entry.server_time} ({entry.source})")
    return found


# ---------------------------------------------------------------------------- the record file


def write_record(submissions: list[Submission], deadline: str, path: Path) -> None:
    path.write_text(json.dumps({"deadline": deadline, "submissions": [asdict(s) for s in submissions]}, indent=2) + "\n",
                    encoding="utf-8")


def read_record(path: Path) -> dict[str, Submission]:
    """{repository name (after the slash): Submission} from a record file; ValueError when malformed.

    Every entry must name ``owner/name`` and carry a full commit id or none:
    what batch hands to git is never anything else.
    """
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        entries = [Submission(**entry) for entry in data["submissions"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path} is not a server record written by record-submissions: {exc}") from None
    for entry in entries:
        if not all(isinstance(v, str) for v in asdict(entry).values()) or not REPOSITORY.fullmatch(entry.repository):
            raise ValueError(f"{path}: {entry.repository!r} is not owner/name")
        if entry.commit and not SHA.fullmatch(entry.commit):
            raise ValueError(f"{path}: the commit of {entry.repository} is not 40 hex digits: {entry.commit[:50]!r}")
    return {entry.repository.rsplit("/", 1)[-1]: entry for entry in entries}
