#!/usr/bin/env python3
"""List the student repositories and split them into slices: the "list" job of grade-class.yml.

Reads REPOSITORIES (owner/name separated by spaces, commas or new lines),
or ORGANIZATION and PREFIX (every repository of the organisation named
"<PREFIX>-...", asked of GitHub with ``gh api``; GH_TOKEN is the token), and
SLICES ("auto": one per 40 students, or a number, at most 20). Writes
``matrix`` ({"include": [{"slice": i, "repositories": "a/b c/d"}]}) and
``count`` to $GITHUB_OUTPUT. Exits 1 with a ``::error::`` line for a name
that is not owner/name, two owners with the same repository name, no
repositories, or an answer of GitHub that is not a list of repositories.
Standard library only: the job has no Python set up and no grader installed.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys

NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9-]*/[A-Za-z0-9._-]+")
PER_SLICE = 40  # students per slice with slices: auto (its time: grader/docs/hosts.md, "Batch grading")
MAX_SLICES = 20
GH_TIMEOUT_S = 120


def fail(message: str) -> None:
    print(f"::error::{message}")
    sys.exit(1)


def organisation_repositories(organization: str, prefix: str) -> list[str]:
    path = f"orgs/{organization}/repos?per_page=100"
    for attempt in range(3):
        try:
            done = subprocess.run(["gh", "api", "--paginate", "--slurp", path], capture_output=True, text=True,
                                  timeout=GH_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            continue
        if done.returncode == 0:
            break
    else:
        fail(f"gh api {path} did not answer (3 attempts)")
    if done.returncode != 0:
        fail(f"gh api {path}: {done.stderr.strip()[-300:]}")
    try:
        pages = json.loads(done.stdout)
        repos = [repo for page in pages for repo in page]
        names = [repo["full_name"] for repo in repos if isinstance(repo["name"], str) and repo["name"].startswith(prefix + "-")]
    except (ValueError, TypeError, KeyError):
        fail(f"GitHub's answer to {path} is not a list of repositories")
    return names


def main() -> None:
    given = os.environ.get("REPOSITORIES", "")
    organization, prefix = os.environ.get("ORGANIZATION", "").strip(), os.environ.get("PREFIX", "").strip()
    if re.sub(r"[\s,]", "", given):
        repos = [r for r in re.split(r"[\s,]+", given) if r]
    elif organization and prefix:
        repos = organisation_repositories(organization, prefix)
    else:
        fail("Give either repositories, or organization and assignment_prefix.")
    repos = sorted(set(repos))
    bad = [r for r in repos if not isinstance(r, str) or not NAME.fullmatch(r)]
    if bad:
        fail(f"not owner/name: {', '.join(map(str, bad))[:500]}")
    if not repos:
        fail("no student repositories found")
    names = [r.split("/")[1] for r in repos]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        fail(f"two owners have a repository named {', '.join(twice)}")
    wanted = (os.environ.get("SLICES") or "auto").strip()
    if wanted == "auto":
        wanted = str(-(-len(repos) // PER_SLICE))
    elif not wanted.isdigit():
        fail(f"slices must be a number or auto, not {wanted!r}")
    n = max(1, min(int(wanted), MAX_SLICES, len(repos)))
    include = [{"slice": i, "repositories": " ".join(repos[i::n])} for i in range(n)]
    with open(os.environ["GITHUB_OUTPUT"], "a", encoding="utf-8") as out:
        out.write(f"matrix={json.dumps({'include': include})}\n")
        out.write(f"count={len(repos)}\n")
    print(f"{len(repos)} repositories in {n} slices")


if __name__ == "__main__":
    main()
