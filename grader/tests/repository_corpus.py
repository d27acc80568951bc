"""The corpus of hostile repositories: ``grader/tests/corpus/repositories/<case>/``.

Each case is a folder with ``build.py`` and ``expect.toml``:

* ``build.py`` defines ``build(repo, ctx)``: it writes commits into ``repo``
  (a :class:`grader.tests.gitrepos.Repository`, a real bare repository, no
  work tree) and tells ``ctx`` (a :class:`Context`) what GitHub would say
  about it: pushes, Classroom 50 releases, API answers of its own.
* ``expect.toml`` says what the class gradebook row must be::

      description = "what the student did"
      error = "substring"                 # an error row whose error contains this, or:
      [scores]                            # the points of every exercise
      collate = 0
      [reasons]                           # for each file left out: a substring of its problem
      collate = "is a Git LFS pointer"    # (the row's integrity flags and the exercise's feedback)
      flags = ["substring"]               # (top level) integrity flags the row must carry

  A case's row must also come from the commit ``ctx.graded`` names (by
  default the newest push to the default branch at or before the deadline).
"""

from __future__ import annotations

import importlib.util
import tomllib
from dataclasses import dataclass, field
from datetime import datetime, timedelta
from pathlib import Path
from urllib.parse import quote

from grader.paths import REPO
from grader.registry import CONTRACT_FILES, EXERCISES
from grader.tests.gitrepos import Repository

CASES = REPO / "grader" / "tests" / "corpus" / "repositories"
SOLUTIONS, STUBS = REPO / "solutions", REPO / "exercises"
EXPECT_KEYS = {"description", "error", "scores", "reasons", "flags"}


def case_names() -> list[str]:
    return sorted(p.name for p in CASES.iterdir() if (p / "expect.toml").is_file())


def load_expect(name: str) -> dict:
    """A case's expect.toml, checked: either an error or a score for every exercise."""
    expect = tomllib.loads((CASES / name / "expect.toml").read_text(encoding="utf-8"))
    unknown = set(expect) - EXPECT_KEYS
    assert not unknown, f"{name}/expect.toml: unknown keys {sorted(unknown)}"
    assert ("error" in expect) != ("scores" in expect), f"{name}/expect.toml: give either error or scores"
    if "scores" in expect:
        assert set(expect["scores"]) == set(EXERCISES), f"{name}/expect.toml: scores must name every exercise"
        assert set(expect.get("reasons", {})) <= set(EXERCISES)
    expect.setdefault("reasons", {})
    expect.setdefault("flags", [])
    return expect


def contract(source: Path, **replace: bytes) -> dict[str, bytes]:
    """The five files of ``source`` (solutions/ or exercises/) as {"exercises/<file>": bytes}, some replaced."""
    files = {f"exercises/{name}": (source / name).read_bytes() for name in CONTRACT_FILES}
    for exercise, content in replace.items():
        files[f"exercises/{exercise}.py"] = content
    return files


@dataclass
class Context:
    """What a builder may use, and what it tells the class about its repository.

    ``repository`` is "owner/name"; ``deadline`` an ISO 8601 time;
    ``attacker_url`` a listener on loopback that must receive nothing (a
    student's own server); ``classmate`` another student's repository name.
    """

    repository: str
    deadline: str
    attacker_url: str
    classmate: str
    default_branch: str = "main"
    pushes: list[dict] = field(default_factory=list)
    releases: list[tuple[str, str, str]] = field(default_factory=list)
    answers: dict[str, object] = field(default_factory=dict)
    graded: str = ""

    def reference(self, **replace: bytes) -> dict[str, bytes]:
        return contract(SOLUTIONS, **replace)

    def stubs(self, **replace: bytes) -> dict[str, bytes]:
        return contract(STUBS, **replace)

    def at(self, hours: float) -> str:
        """The deadline plus ``hours`` (negative: before), as GitHub writes times."""
        moment = datetime.fromisoformat(self.deadline) + timedelta(hours=hours)
        return moment.strftime("%Y-%m-%dT%H:%M:%SZ")

    def push(self, commit: str, hours: float, branch: str | None = None, kind: str = "push") -> None:
        """GitHub received a push moving ``branch`` (default: the default branch) to ``commit`` at deadline + ``hours``."""
        self.pushes.append({"activity_type": kind, "ref": f"refs/heads/{branch or self.default_branch}",
                            "after": commit, "before": "0" * 40, "timestamp": self.at(hours)})

    def release(self, tag: str, commit: str, hours: float) -> None:
        """A Classroom 50 submission: tag ``tag`` on ``commit``, whose push GitHub received at deadline + ``hours``."""
        self.releases.append((tag, commit, self.at(hours)))

    def api_answers(self) -> dict[str, object]:
        """{gh api path: answer (one page for a list)} for this repository, as GitHub would answer."""
        repo = self.repository
        found = {f"repos/{repo}": {"name": repo.split("/")[1], "full_name": repo, "default_branch": self.default_branch},
                 f"repos/{repo}/releases?per_page=100": [{"tag_name": tag, "draft": False, "published_at": received}
                                                          for tag, _, received in self.releases],
                 f"repos/{repo}/activity?ref={quote('refs/heads/' + self.default_branch, safe='')}&per_page=100":
                     list(reversed(self.pushes))}
        for tag, commit, received in self.releases:
            found[f"repos/{repo}/git/ref/tags/{quote(tag, safe='/')}"] = {
                "ref": f"refs/tags/{tag}", "object": {"sha": commit, "type": "commit"}}
            found.update(self._compare_answers(commit))
        found.update(self.answers)
        return found

    def _compare_answers(self, commit: str) -> dict[str, object]:
        """GitHub's compare of ``commit`` with each head of the default branch, the branch's history taken as the
        sequence of its pushes (a force push starts it anew)."""
        ref, history, found = f"refs/heads/{self.default_branch}", [], {}
        for p in sorted((p for p in self.pushes if p["ref"] == ref), key=lambda p: p["timestamp"]):
            history = [p["after"]] if p["activity_type"] == "force_push" else [*history, p["after"]]
            status = "identical" if commit == p["after"] else "ahead" if commit in history else "diverged"
            found[f"repos/{self.repository}/compare/{commit}...{p['after']}"] = {"status": status}
        return found

    def expected_commit(self) -> str:
        """The commit the row must come from: ``graded``, else the newest default-branch push by the deadline."""
        if self.graded:
            return self.graded
        ref, deadline = f"refs/heads/{self.default_branch}", self.at(0)
        pushes = sorted((p["timestamp"], p["after"]) for p in self.pushes if p["ref"] == ref and p["timestamp"] <= deadline)
        return pushes[-1][1] if pushes else ""


def build_case(name: str, path: Path, ctx: Context) -> Repository:
    """Run case ``name``'s builder on a new bare repository at ``path``."""
    spec = importlib.util.spec_from_file_location(f"repository_case_{name}", CASES / name / "build.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    repo = Repository(path, default=ctx.default_branch)
    module.build(repo, ctx)
    return repo
