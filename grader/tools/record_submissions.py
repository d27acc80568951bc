"""What was on the server at the deadline: ``python -m grader record-submissions``.

A commit's date is written by the student's machine (``git commit --date``),
so a deadline judged by commit dates can be forged. This module asks GitHub
instead, whose times the student cannot set, and writes a *server record*:
for each student repository, the commit to grade and the server time that
makes it the submission at the deadline. ``batch --deadline --server-record``
grades exactly those commits.

Two sources, tried in this order for each repository:

* **Classroom 50 submissions**: ``submit/...`` tags with a Release. A tag's
  name and a Release's ``created_at`` come from the student's clock or the
  commit, so the time taken is when GitHub received the push that ran the
  submission's workflow: the earliest workflow run (``created_at``) for the
  tag's commit.
* **Pushes** to the default branch, from the repository activity API: each
  push has a server ``timestamp`` and the commit it moved the branch to
  (``after``).

The newest submission or push at or before the deadline wins; a repository
with none gets an entry without a commit, and batch reports it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from dataclasses import asdict, dataclass
from datetime import datetime
from pathlib import Path


@dataclass(frozen=True)
class Submission:
    """The commit of one repository at the deadline, and the server time that says so."""

    repository: str
    commit: str  # "" when nothing was submitted before the deadline
    server_time: str  # ISO 8601, from GitHub
    source: str  # "classroom50 release submit/..." or "push to refs/heads/main"


def parse_time(text: str) -> datetime:
    """An ISO 8601 time with a zone ("2026-12-01T23:59:00Z" or "+01:00"); ValueError otherwise."""
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone; write it like 2026-12-01T23:59:00+01:00")
    return moment


def latest_push(repository: str, pushes: list[dict], deadline: datetime) -> Submission | None:
    """The newest push (activity API entries) at or before ``deadline``."""
    best = None
    for push in pushes:
        if push.get("activity_type", "push") not in ("push", "force_push") or not push.get("after"):
            continue
        when = parse_time(push["timestamp"])
        if when <= deadline and (best is None or when > parse_time(best["timestamp"])):
            best = push
    if best is None:
        return None
    return Submission(repository, best["after"], best["timestamp"], f"push to {best.get('ref', 'the default branch')}")


def latest_release(repository: str, releases: list[dict], received: dict[str, str], deadline: datetime) -> Submission | None:
    """The newest Classroom 50 submission whose push reached GitHub at or before ``deadline``.

    ``releases`` are the repository's Releases (API entries); ``received``
    maps a ``submit/`` tag to (commit, server time the push was received).
    """
    best = None
    for release in releases:
        tag = release.get("tag_name", "")
        if not tag.startswith("submit/") or tag not in received:
            continue
        commit, when = received[tag]
        if commit and parse_time(when) <= deadline and (best is None or parse_time(when) > parse_time(best.server_time)):
            best = Submission(repository, commit, when, f"classroom50 release {tag}")
    return best


def gh_api(path: str, *, pages: bool = False) -> list | dict:
    """``gh api PATH`` as JSON (the token comes from GH_TOKEN); ``pages``: every page of a list, joined."""
    paging = ["--paginate", "--slurp"] if pages else []
    done = subprocess.run(["gh", "api", *paging, "-H", "Accept: application/vnd.github+json", path],
                          capture_output=True, text=True, timeout=120)
    if done.returncode != 0:
        raise RuntimeError(f"gh api {path}: {done.stderr.strip()[-300:]}")
    data = json.loads(done.stdout or "null")
    return [item for page in data for item in page] if pages else data


def record(repository: str, deadline: datetime) -> Submission:
    """Ask GitHub what ``repository`` held at ``deadline``."""
    releases = gh_api(f"repos/{repository}/releases?per_page=100", pages=True)
    received = {}
    for release in releases:
        tag = release.get("tag_name", "")
        if tag.startswith("submit/"):
            ref = gh_api(f"repos/{repository}/git/ref/tags/{tag}")
            commit = ref.get("object", {}).get("sha", "")
            runs = gh_api(f"repos/{repository}/actions/runs?head_sha={commit}&per_page=100")
            times = sorted(run["created_at"] for run in runs.get("workflow_runs", []))
            if commit and times:
                received[tag] = (commit, times[0])
    found = latest_release(repository, releases, received, deadline)
    if found is None:
        pushes = gh_api(f"repos/{repository}/activity?activity_type=push&per_page=100", pages=True)
        found = latest_push(repository, pushes, deadline)
    return found or Submission(repository, "", "", "nothing pushed before the deadline")


def write_record(submissions: list[Submission], deadline: str, path: Path) -> None:
    path.write_text(json.dumps({"deadline": deadline, "submissions": [asdict(s) for s in submissions]}, indent=2) + "\n",
                    encoding="utf-8")


def read_record(path: Path) -> dict[str, Submission]:
    """{repository name (after the slash): Submission} from a record file; ValueError when malformed."""
    try:
        data = json.loads(Path(path).read_text(encoding="utf-8"))
        entries = [Submission(**entry) for entry in data["submissions"]]
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise ValueError(f"{path} is not a server record written by record-submissions: {exc}") from None
    return {entry.repository.rsplit("/", 1)[-1]: entry for entry in entries}


HELP = "ask GitHub which commit each repository held at the deadline"


def add_arguments(parser) -> None:
    parser.add_argument("repositories", nargs="+", help="owner/name of each student repository")
    parser.add_argument("--deadline", required=True, help="ISO 8601 with a time zone, e.g. 2026-12-01T23:59:00+01:00")
    parser.add_argument("--out", type=Path, required=True, help="the record file (JSON) for batch --server-record")


def run(args) -> int:
    try:
        deadline = parse_time(args.deadline)
    except ValueError as exc:
        print(f"python -m grader record-submissions: error: --deadline: {exc}", file=sys.stderr)
        return 2
    found = []
    for repository in args.repositories:
        try:
            found.append(record(repository, deadline))
        except (RuntimeError, OSError, ValueError, KeyError) as exc:
            print(f"{repository}: {exc}", file=sys.stderr)
            found.append(Submission(repository, "", "", f"could not ask GitHub: {exc}"[:300]))
        print(f"{repository}: {found[-1].commit[:12] or '-'} {found[-1].server_time} ({found[-1].source})", file=sys.stderr)
    write_record(found, args.deadline, args.out)
    return 0
