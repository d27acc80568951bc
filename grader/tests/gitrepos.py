"""Real git repositories for the tests, written object by object: no work tree, ever.

:class:`Repository` makes a bare repository configured like a GitHub
repository is served: filters allowed, and reachable commits fetchable by
id (``uploadpack.allowReachableSHA1InWant``: git's protocol v0 refuses a
want by id without it; v2, which the reader asks for, serves any object
the server has, reachable or not)
and writes commits whose tree is exactly what the test says, entries git
would never let a work tree hold included: a symbolic link to
``/proc/self/mem`` (:class:`Link`), a submodule entry (:class:`Gitlink`),
100,000 files. Objects are written as git's loose objects (zlib of
"<type> <size>\\0<body>", named by their SHA-1), the way ``git hash-object
-w`` writes them, without a process per object: a class of 30 takes a
second or two, and ``git mktree`` alone takes seconds for one folder of
100,000 entries (fast-import, minutes). Refs are set by ``git update-ref``,
which checks their names. Dates are the committer's (a student can write any).
"""

from __future__ import annotations

import hashlib
import os
import subprocess
import zlib
from dataclasses import dataclass
from datetime import datetime
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


def git(repo: Path, *args: str, input: bytes | None = None) -> str:
    done = subprocess.run(["git", "-C", str(repo), *args], input=input, capture_output=True, check=False,
                          env={**os.environ, **GIT_ENV}, timeout=300)
    if done.returncode != 0:
        raise RuntimeError(f"git {' '.join(args[:3])} failed: {done.stderr.decode(errors='replace')[-2000:]}")
    return done.stdout.decode(errors="replace").strip()


class Repository:
    """A bare repository at ``path`` (created, with HEAD on ``default``)."""

    def __init__(self, path: Path, default: str = "main"):
        self.path = Path(path)
        self.path.mkdir(parents=True, exist_ok=True)
        git(self.path, "init", "-q", "--bare", "--template=", f"--initial-branch={default}")
        with open(self.path / "config", "a", encoding="utf-8") as config:
            config.write("[uploadpack]\n\tallowFilter = true\n\tallowReachableSHA1InWant = true\n")
        self.heads: dict[str, str] = {}
        self.written: set[str] = set()

    def commit(self, files: dict[str, Entry], *, branch: str = "main", message: str = "work",
               date: str = "2026-11-01T10:00:00+00:00") -> str:
        """Commit a tree holding exactly ``files`` ({path: entry}) on ``branch``, after its last commit; return its id."""
        root: dict = {}
        blobs: dict[bytes, str] = {}
        for path, entry in files.items():
            *folders, name = path.split("/")
            node = root
            for folder in folders:
                node = node.setdefault(folder, {})
            if isinstance(entry, Gitlink):
                node[name] = ("160000", entry.commit)
            else:
                content = entry.target.encode() if isinstance(entry, Link) else getattr(entry, "content", entry)
                if content not in blobs:
                    blobs[content] = self._object("blob", content)
                node[name] = ({Link: "120000", Executable: "100755"}.get(type(entry), "100644"), blobs[content])
        when = f"{int(datetime.fromisoformat(date).timestamp())} +0000"
        lines = [f"tree {self._tree(root)}"]
        if branch in self.heads:
            lines.append(f"parent {self.heads[branch]}")
        lines += [f"author {IDENTITY} {when}", f"committer {IDENTITY} {when}", "", message, ""]
        commit = self._object("commit", "\n".join(lines).encode())
        git(self.path, "update-ref", f"refs/heads/{branch}", commit)
        self.heads[branch] = commit
        return commit

    def _object(self, kind: str, body: bytes) -> str:
        """Write one loose object (if not there yet); return its id."""
        data = f"{kind} {len(body)}".encode() + b"\0" + body
        oid = hashlib.sha1(data).hexdigest()
        if oid not in self.written:
            folder = self.path / "objects" / oid[:2]
            folder.mkdir(exist_ok=True)
            (folder / oid[2:]).write_bytes(zlib.compress(data, 1))
            self.written.add(oid)
        return oid

    def _tree(self, node: dict) -> str:
        """Write a tree and the trees below it, in git's format and order (a subfolder sorts as "<name>/")."""
        entries = []
        for name, value in node.items():
            mode, oid = ("40000", self._tree(value)) if isinstance(value, dict) else value
            entries.append((name.encode() + (b"/" if isinstance(value, dict) else b""), mode, name, oid))
        return self._object("tree", b"".join(f"{mode} {name}".encode() + b"\0" + bytes.fromhex(oid)
                                             for _, mode, name, oid in sorted(entries)))

    def set_head(self, branch: str) -> None:
        """The default branch: what a fetch of HEAD gets."""
        git(self.path, "symbolic-ref", "HEAD", f"refs/heads/{branch}")

    def tag(self, name: str, commit: str) -> None:
        git(self.path, "update-ref", f"refs/tags/{name}", commit)
