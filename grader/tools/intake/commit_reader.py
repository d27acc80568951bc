"""The one reader of a submission's five contract files: from a commit, or from a local folder.

Every path that grades what a student committed (the class workflow,
``batch --server-record``, ``batch --deadline`` on local checkouts, the GPU
workflow) reads with :func:`read_commit`; ``batch FOLDER`` reads with
:func:`grader.tools.intake.folder_reader.read_folder`, under the same rules. Both
write the accepted files, and nothing else, into a fresh folder the grader
then grades.

Contracts
---------
* :func:`read_commit` never checks anything out: it fetches the one commit
  into a fresh bare repository (:mod:`grader.tools.intake.git_transport`) and reads
  the tree with ``git ls-tree`` and the blobs with ``git cat-file``: the
  contract files under ``exercises/`` of the student template, or at the
  top level when the commit has no ``exercises`` entry.
* A contract file is accepted only as a blob of mode 100644 or 100755, at
  most :data:`CONTRACT_FILE_MAX_BYTES`, that is not a Git LFS pointer.
  Otherwise (a symbolic link, a submodule, a folder, an LFS pointer, too
  large, missing) that one file is left out and :attr:`Intake.problems` says
  which file and why, in a sentence for the student: the other files are
  graded. Nothing is ever followed: a link's target is not even read.
* :func:`grader.tools.intake.folder_reader.read_folder` opens each file with
  ``O_NOFOLLOW | O_NONBLOCK`` from a folder opened without following links:
  regular files only, the same cap, read up to the cap and no further
  (``/proc/self/mem``, ``/proc/kmsg``, a FIFO or ``/proc/self/pagemap``
  under a contract name costs that file only).
* Whatever is wrong with the submission as a whole (no such commit, an
  ``exercises`` that is a link, an unreadable folder) raises
  :class:`IntakeError` with the reason: the caller makes it that student's
  row.
* :func:`annotate` writes the problems into a grading's result: the
  exercise's note and its checks' messages name the file and why, and each
  problem is an integrity flag (so the gradebook row names it too).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from grader.engine.results import GradeResult
from grader.registry import CONTRACT_FILES
from grader.tools.intake.git_transport import FetchError, fetch_commit, run_git

#: The most bytes a contract file may have (a .py of the lab is a few kB). Not the jail's RLIMIT_FSIZE.
CONTRACT_FILE_MAX_BYTES = 1_000_000
#: The first line of a Git LFS pointer file (and of its pre-1.0 form).
LFS_POINTER_STARTS = (b"version https://git-lfs.github.com/spec/v1", b"version https://hawser.github.com/spec/v1")
FOLDER = "exercises"
ACCEPTED_MODES = ("100644", "100755")
WHAT_MODE_IS = {"120000": "a symbolic link", "160000": "a submodule (a link to another repository)", "040000": "a folder"}


class IntakeError(ValueError):
    """The submission as a whole cannot be read; the message says why (it becomes the student's row)."""


@dataclass
class Intake:
    """What was read: ``files`` written into the folder, and ``problems``: {file name: sentence} for each
    contract file left out (a missing file included); ``notes``: what the instructor should know that costs
    nothing (a name differing only in case from a contract file)."""

    commit: str = ""
    files: tuple[str, ...] = ()
    problems: dict[str, str] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)
    missing: tuple[str, ...] = ()  # simply absent: named in problems, but no integrity flag


# ---------------------------------------------------------------------------- from a commit


def read_commit(url: str, want: str, dest: Path, *, token: str | None = None, where: str = "the server") -> Intake:
    """Fetch ``want`` (commit id or ref) of the repository at ``url`` and write its accepted contract files into ``dest``.

    ``token`` is given to git for ``url``'s own server only. Raises IntakeError.
    """
    dest.mkdir(parents=True, exist_ok=True)
    work = Path(tempfile.mkdtemp(prefix="grader-intake-"))
    try:
        try:
            commit, options, env = fetch_commit(url, want, work / "repo.git", cap_bytes=CONTRACT_FILE_MAX_BYTES,
                                                token=token, where=where)
        except (FetchError, ValueError) as exc:
            raise IntakeError(str(exc)) from None
        except subprocess.TimeoutExpired:
            raise IntakeError(f"preparing the fetch from {url} did not finish (git init or remote)") from None
        try:
            return _read_tree(work / "repo.git", commit, dest, options, env)
        except subprocess.TimeoutExpired:
            raise IntakeError(f"reading the commit fetched from {url} did not finish (git ls-tree or cat-file)") from None
    finally:
        shutil.rmtree(work, ignore_errors=True)


def _read_tree(repo: Path, commit: str, dest: Path, options: list[str], env: dict[str, str]) -> Intake:
    def git(*args: str, input: bytes | None = None) -> bytes:
        done = run_git(repo, list(args), options=options, env=env, input=input)
        if done.returncode != 0:
            raise IntakeError(f"git {args[0]} failed on the submitted commit: {done.stderr.decode(errors='replace')[-300:]}")
        return done.stdout

    top = _entries(git("ls-tree", "-z", commit))
    prefix, entries = "", top
    if FOLDER in top:
        mode, kind, oid = top[FOLDER]
        if kind != "tree":
            raise IntakeError(f"{FOLDER} is {WHAT_MODE_IS.get(mode, f'of mode {mode}')} in the submitted commit, not a "
                              f"folder: commit the folder {FOLDER}/ with the five files in it")
        prefix, entries = f"{FOLDER}/", _entries(git("ls-tree", "-z", oid))
    intake = Intake(commit=commit)
    wanted = {}
    for name in CONTRACT_FILES:
        path = prefix + name
        note_case_twins(intake, name, entries, prefix)
        if name not in entries:
            intake.problems[name] = f"{path} is missing from the submitted commit{case_hint(name, entries, prefix)}"
            intake.missing += (name,)
            continue
        mode, kind, oid = entries[name]
        if mode not in ACCEPTED_MODES or kind != "blob":
            what = WHAT_MODE_IS.get(mode, f"an entry of mode {mode}")
            intake.problems[name] = f"{path} is {what} in the submitted commit: commit the file itself"
            continue
        wanted[name] = oid
    sizes = _sizes(git("cat-file", "--batch-check=%(objectname) %(objecttype) %(objectsize)",
                       input="".join(f"{oid}\n" for oid in wanted.values()).encode()))
    for name, oid in wanted.items():
        path = prefix + name
        size = sizes.get(oid)
        if size is None or size > CONTRACT_FILE_MAX_BYTES:  # absent: the fetch left it on the server for its size
            intake.problems[name] = (f"{path} is larger than {CONTRACT_FILE_MAX_BYTES:,} bytes in the submitted commit: "
                                     "a contract file is a .py of a few kB")
            continue
        content = git("cat-file", "blob", oid)
        if is_lfs_pointer(content):
            intake.problems[name] = (f"{path} is a Git LFS pointer in the submitted commit, not the file: commit the file "
                                     "itself (not through LFS: remove its filter=lfs line from .gitattributes)")
            continue
        write_file(dest / name, content)
        intake.files += (name,)
    return intake


def _entries(listing: bytes) -> dict[str, tuple[str, str, str]]:
    """{name: (mode, type, object id)} from ``git ls-tree -z``; names that are not UTF-8 are dropped."""
    found = {}
    for record in listing.split(b"\0"):
        if not record:
            continue
        meta, _, name = record.partition(b"\t")
        mode, kind, oid = meta.decode("ascii", "replace").split(" ")
        try:
            found[name.decode("utf-8")] = (mode, kind, oid)
        except UnicodeDecodeError:
            continue  # cannot be a contract file's name
    return found


def _sizes(batch: bytes) -> dict[str, int]:
    """{object id: size} for the blobs present, from ``cat-file --batch-check`` ("<oid> missing" for the absent)."""
    sizes = {}
    for line in batch.decode("ascii", "replace").splitlines():
        parts = line.split(" ")
        if len(parts) == 3 and parts[1] == "blob" and parts[2].isdigit():
            sizes[parts[0]] = int(parts[2])
    return sizes


def is_lfs_pointer(content: bytes) -> bool:
    """True for a Git LFS pointer file: its content is stored on an LFS server, the commit holds only this."""
    return content.startswith(LFS_POINTER_STARTS)


def _case_twins(name: str, names, prefix: str) -> list[str]:
    return sorted(prefix + other for other in names if other != name and other.lower() == name.lower())


def case_hint(name: str, names, prefix: str) -> str:
    twins = _case_twins(name, names, prefix)
    return f" (there is {', '.join(twins)}: file names are case-sensitive, name it {name})" if twins else ""


def note_case_twins(intake: Intake, name: str, names, prefix: str) -> None:
    if name in names and (twins := _case_twins(name, names, prefix)):
        intake.notes.append(f"{', '.join(twins)} beside {prefix}{name}: only {prefix}{name} is graded")


def write_file(path: Path, content: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as out:
        out.write(content)


# ---------------------------------------------------------------------------- into the result


def annotate(result: GradeResult, intake: Intake) -> GradeResult:
    """Put ``intake``'s problems and notes into ``result`` (in place; returned).

    For each file left out, its exercise's note, and each check's message
    that was the grader's "missing" note, become the problem's sentence;
    each problem other than a plain missing file, and each note, becomes an
    integrity flag.
    """
    for name, sentence in intake.problems.items():
        exercise = result.exercise(name.removesuffix(".py"))
        if exercise is None:
            continue
        old = exercise.note
        exercise.note = sentence
        for check in exercise.checks:
            if check.status != "passed" and (not old or check.message == old):
                check.message = sentence
    flags = [sentence for name, sentence in intake.problems.items() if name not in intake.missing] + intake.notes
    shown = [f"not graded: {flag}" if flag in intake.problems.values() else flag for flag in flags]
    result.integrity_flags = shown + [f for f in result.integrity_flags if f not in shown]
    return result
