"""What must be rebuilt after a change: the four things an instructor hands out, each named by a hash of its inputs.

The template (``release``), the published grader (``publish``), the
Gradescope zip (``gradescope``) and the Classroom 50 bundle (``classroom50``)
are copies: a change here reaches students only when the copy is made again
and uploaded. Each has a hash over the files it is made from
(:func:`current`); the command that builds it records that hash in
:data:`RECORD` (``.grader-builds.json``, ignored by git: it says what this
clone last built), and ``check`` lists every copy whose hash has moved since
(:func:`report`). The published grader's hash is the grader's identity that
every report carries (:func:`grader.engine.provenance.grader_hash`).

The Gradescope zip may carry the course key (``$GRADER_SEED_KEY``), which
the hash leaves out: the record says whether the last zip carried one
(never the key itself), and whether one this clone built before did, so that
``check`` names a rebuild that would drop it, or did, and shows the command
with the key.
"""

from __future__ import annotations

import hashlib
import json
import os
import time
from dataclasses import dataclass
from pathlib import Path

from grader.engine import provenance
from grader.paths import REPO
from grader.registry import REGISTRY

RECORD_NAME = ".grader-builds.json"
TEMPLATES = Path("grader/tools/delivery/templates")


@dataclass(frozen=True)
class Artifact:
    name: str
    command: str  # how to rebuild it
    inputs: tuple[str, ...]  # files and folders (relative to the repository) it is made from, besides the grader
    with_grader: bool  # whether it carries the published grader


ARTIFACTS = (
    Artifact("template", "python -m grader release OUT --force",
             ("exercises", "tests", "LAB.md", "lab.toml", "requirements.txt", "pyproject.toml",
              *(entry.promises for entry in REGISTRY), *(entry.checks for entry in REGISTRY),
              "grader/tools/delivery/student_template.py", "grader/tools/delivery/templates/student"), False),
    Artifact("published grader", "python -m grader publish OUT --force", ("grader/tools/delivery/published_grader.py",), True),
    Artifact("Gradescope zip", "python -m grader gradescope OUT.zip",
             ("grader/tools/delivery/host_bundles.py", "grader/tools/delivery/templates/gradescope"), True),
    Artifact("Classroom 50 bundle", "python -m grader classroom50 OUT --force",
             ("grader/tools/delivery/host_bundles.py", "grader/tools/delivery/templates/classroom50"), True),
)


def _files(repo: Path, relative: str) -> list[Path]:
    path = repo / relative
    if path.is_file():
        return [path]
    return sorted(p for p in path.rglob("*") if p.is_file() and "__pycache__" not in p.parts and p.suffix != ".pyc")


def current(repo: Path = REPO) -> dict[str, str]:
    """{artifact name: SHA-256 (hex) of what it would be built from now}."""
    grader = provenance.grader_hash(repo)
    hashes = {}
    for artifact in ARTIFACTS:
        digest = hashlib.sha256(b"artifact/1\0" + (grader.encode() if artifact.with_grader else b""))
        for relative in artifact.inputs:
            for path in _files(repo, relative):
                name = path.relative_to(repo).as_posix().encode()
                data = path.read_bytes()
                digest.update(len(name).to_bytes(8, "big") + name + len(data).to_bytes(8, "big") + data)
        hashes[artifact.name] = digest.hexdigest()
    return hashes


#: The artifact that may carry the course key, and how its rebuild keeps it.
KEYED = "Gradescope zip"
KEYED_COMMAND = "GRADER_SEED_KEY=<the course key> python -m grader gradescope OUT.zip"


def record(name: str, out: Path, repo: Path = REPO, *, course_key: bool | None = None) -> None:
    """Note that ``name`` was just built into ``out`` from what the repository holds now (best effort); for the
    Gradescope zip, ``course_key`` says whether it carries the course key (the key itself is never written).

    Not while the test suite runs (pytest's ``PYTEST_CURRENT_TEST`` reaches the commands it starts): a test's
    build is no copy anyone uploads."""
    if os.environ.get("PYTEST_CURRENT_TEST"):
        return
    path = repo / RECORD_NAME
    try:
        built = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
        before = built.get(name, {})
        built[name] = {"sha256": current(repo)[name], "out": str(Path(out).resolve()),
                       "at": time.strftime("%Y-%m-%dT%H:%M:%SZ", time.gmtime())}
        if course_key is not None:
            built[name]["course_key"] = course_key
            built[name]["course_key_before"] = bool(before.get("course_key") or before.get("course_key_before"))
        path.write_text(json.dumps(built, indent=2, sort_keys=True) + "\n", encoding="utf-8")
    except (OSError, ValueError):
        pass  # a read-only clone still builds; check will then say "never built here"


def last_built(repo: Path = REPO) -> dict[str, dict]:
    """{artifact name: its record} of what this clone last built ({} where nothing was, or the record is unreadable)."""
    path = repo / RECORD_NAME
    try:
        built = json.loads(path.read_text(encoding="utf-8")) if path.is_file() else {}
    except (OSError, ValueError):
        return {}
    return built if isinstance(built, dict) else {}


def report(repo: Path = REPO) -> list[str]:
    """One line per artifact: up to date, or what to run because its hash moved (or it was never built here); a warning
    line after the Gradescope zip when its last build dropped the course key an earlier one carried."""
    built = last_built(repo)
    lines = []
    for artifact in ARTIFACTS:
        now = current(repo)[artifact.name]
        last = built.get(artifact.name, {})
        keyed = artifact.name == KEYED and last.get("course_key")
        command = KEYED_COMMAND if keyed else artifact.command
        if last.get("sha256") == now:
            lines.append(f"{artifact.name}: up to date ({now[:12]}, built into {last.get('out')} at {last.get('at')})")
        elif last:
            lines.append(f"{artifact.name}: REBUILD (built from {last['sha256'][:12]}, now {now[:12]}): {command}"
                         f" (last into {last.get('out')}), then upload it again"
                         + ("; the last zip carried the course key: without it the grade of record loses the "
                            "students' secret seeds" if keyed else ""))
        else:
            lines.append(f"{artifact.name}: never built from this clone (now {now[:12]}): {artifact.command}")
        if artifact.name == KEYED and last and not last.get("course_key") and last.get("course_key_before"):
            lines.append(f"  warning: the last Gradescope zip ({last.get('out')}) was built without the course key, "
                         f"and the one before carried it: rebuild it with the key, {KEYED_COMMAND}, and upload it")
    return lines
