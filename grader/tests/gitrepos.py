"""Real git repositories for the tests, made with ``git hash-object``, ``mktree`` and ``commit-tree``: no work tree, ever.

:class:`Repository` makes a bare repository configured like a GitHub
repository is served (filters allowed, reachable commits fetchable by id)
and writes commits whose tree is exactly what the test says, entries git
would never let a work tree hold included: a symbolic link to
``/proc/self/mem`` (:class:`Link`), a submodule entry (:class:`Gitlink`),
100,000 files. Contents are deduplicated, so a large tree of few distinct
files stays small. Dates are the committer's (a student can write any).
"""

from __future__ import annotations

import os
import subprocess
from dataclasses import dataclass
from pathlib import Path

IDENTITY = "Student <student@example.invalid>"
GIT_ENV = {"GIT_CONFIG_NOSYSTEM": "1", "GIT_CONFIG_GLOBAL": "/dev/null"}


@dataclass(frozen=True)
class Link:
    """A symbolic link (mode 120000) to ``target``."""

    target: str


@dataclass(frozen=True)
class Gitlink:
    """A submodule entry (mode 160000) naming ``commit`` of another repository."""

    commit: str


@dataclass(frozen=True)
class Executable:
    """A regular file with the executable bit (mode 100755)."""

    content: bytes


Entry = bytes | Link | Gitlink | Executable


def git(repo: Path, *args: str, input: bytes | None = None, env: dict | None = None) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], input=input, capture_output=True, check=False,
                          env={**os.environ, **GIT_ENV, **(env or {})}, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args[:3])} failed: {done.stderr.decode(errors='replace')[-2000:]}")
    return done.stdout.decode(errors="replace").strip()


class Repository:
    """A bare repository at ``path`` (created, with HEAD on ``default``), written to with git's plumbing."""

    def __init__(self, path: Path, default: str = "main"):
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        git(self.path, "init", "-q", "--bare", "--template=", f"--initial-branch={default}")
        git(self.path, "config", "uploadpack.allowFilter", "true")
        git(self.path, "config", "uploadpack.allowReachableSHA1InWant", "true")

    def commit(self, files: dict[str, Entry], *, branch: str = "main", message: str = "work",
               date: str = "2026-11-01T10:00:00+00:00") -> str:
        """Commit a tree holding exactly ``files`` ({path: entry}) on ``branch``, after its last commit; return its id."""
        blobs: dict[bytes, str] = {}
        root: dict = {}
        for path, entry in files.items():
            *folders, name = path.split("/")
            node = root
            for folder in folders:
                node = node.setdefault(folder, {})
            if isinstance(entry, Gitlink):
                node[name] = ("160000", "commit", entry.commit)
                continue
            content = entry.target.encode() if isinstance(entry, Link) else getattr(entry, "content", entry)
            if content not in blobs:
                blobs[content] = git(self.path, "hash-object", "-w", "--stdin", input=content)
            node[name] = ({Link: "120000", Executable: "100755"}.get(type(entry), "100644"), "blob", blobs[content])
        tree = self._tree(root)
        ref = f"refs/heads/{branch}"
        parent = git(self.path, "for-each-ref", "--format=%(objectname)", ref)
        env = {"GIT_AUTHOR_NAME": "Student", "GIT_AUTHOR_EMAIL": "student@example.invalid", "GIT_AUTHOR_DATE": date,
               "GIT_COMMITTER_NAME": "Student", "GIT_COMMITTER_EMAIL": "student@example.invalid", "GIT_COMMITTER_DATE": date}
        commit = git(self.path, "commit-tree", tree, *(["-p", parent] if parent else []), "-m", message, env=env)
        git(self.path, "update-ref", ref, commit)
        return commit

    def _tree(self, node: dict) -> str:
        """Write a tree (and the trees below it) with ``git mktree``: fast for 100,000 entries, unlike fast-import."""
        lines = []
        for name, value in node.items():
            if isinstance(value, dict):
                lines.append(f"040000 tree {self._tree(value)}\t{name}")
            else:
                lines.append(f"{value[0]} {value[1]} {value[2]}\t{name}")
        return git(self.path, "mktree", "-z", "--missing", input="\0".join(lines).encode() + b"\0")

    def set_head(self, branch: str) -> None:
        """The default branch: what a fetch of HEAD gets."""
        git(self.path, "symbolic-ref", "HEAD", f"refs/heads/{branch}")

    def tag(self, name: str, commit: str) -> None:
        git(self.path, "update-ref", f"refs/tags/{name}", commit)

    def delete_branch(self, branch: str) -> None:
        git(self.path, "update-ref", "-d", f"refs/heads/{branch}")
