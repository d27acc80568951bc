"""Grade a whole class: ``python -m grader batch`` (its class reports, and ``merge``, are :mod:`grader.tools.class_grading.class_reports`).

``batch SUBMISSIONS --out DIR`` grades every folder directly under
SUBMISSIONS, one student each (the folder name is the student's name). A
folder is either a submission itself (the five exercise files) or a
checkout of the student template, whose ``exercises/`` folder is graded.
The five files are read by :func:`grader.tools.intake.folder_reader.read_folder`
(``O_NOFOLLOW``, regular files only, at most 1 MB each).

With ``--deadline`` and ``--server-record``, each student is graded at the
commit GitHub held at the deadline, as the record says (written by
``python -m grader record-submissions``, which asks GitHub for server times:
a commit's own date can be forged). That commit is read by
:func:`grader.tools.intake.commit_reader.read_commit`: fetched alone into a fresh
repository, never checked out, from the student's local checkout over
``file://`` (SUBMISSIONS given), or with ``--from-server URL`` (and no
SUBMISSIONS) from ``URL/<owner>/<name>.git`` for every repository in the
record, the token of ``$CLASSROOM_TOKEN`` going to that server only. The
gradebook says which commit, which server time and which push or Classroom
50 release each grade comes from.

A contract file that cannot be taken (a link, a submodule, an LFS pointer,
too large, missing) costs its own exercise: the row's integrity flags and
the exercise's feedback name the file and why. Anything wrong with a
student's submission as a whole, or a grading that breaks the grader or
outlives ``--timeout``, is that student's "grader error" row; the batch
always goes on.

Every student is graded by its own ``python -m grader grade`` process,
``--jobs`` at a time. A verdict the machine's load could cause (a timeout,
or a check that failed while the machine was overloaded by other processes,
a neighbouring grading say: :mod:`grader.engine.confirm`) is left pending
by that process and confirmed alone once the class's gradings are done, one
student at a time (``grade --confirm-from``), so a neighbour can never
change a grade. With a course key in ``$GRADER_SEED_KEY`` each student
gets a secret seed of record derived from it and the student's name
(:mod:`grader.engine.seeds`): in ``results/<student>.json`` and the
gradebook, never in the feedback. Without a key, batch says so and every
student gets the class seed (``--seed``, default 0), which anyone can use to
compute the inputs in advance. With ``--files-out FILES`` the five files of
every student read go to ``FILES/<student>/`` (for ``python -m grader review``).
DIR then holds:

    results/<student>.json         the full result (the grade of record)
    results/<student>.error.txt    why a student has no result
    results/<student>.key          what was graded (files, their problems and the seed, framed and
                                   hashed): a rerun skips students whose key is unchanged, unless --force,
                                   or their result holds a check still waiting for its confirmation, or
                                   was made by another grader (another grader_sha256)
    feedback/<student>.md          the Markdown report, to hand back
    gradebook.csv                  one row per student
    summary.md                     the class summary

``merge DIR... --out OUT`` combines the results/ and feedback/ of several
batch outputs (the slices of a matrix job) into one gradebook and summary.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from grader.engine import provenance, seeds
from grader.engine.results import GradeResult
from grader.engine.secret_seed import seed_pipe
from grader.paths import REPO
from grader.registry import CONTRACT_FILES
from grader.report_files import write_text
from grader.text import clean_text
from grader.tools.class_grading.class_reports import BatchError, write_class_reports
from grader.tools.intake.commit_reader import Intake, IntakeError, annotate, read_commit
from grader.tools.intake.deadline_record import Submission, parse_time
from grader.tools.intake.folder_reader import read_folder
from grader.writers import to_json, to_markdown

GRADE_TIMEOUT_S = 900
#: Variables a grading process never needs: the tokens of the class.
SECRET_VARIABLES = ("CLASSROOM_TOKEN", "GH_TOKEN", "GITHUB_TOKEN", "GRADER_GIT_TOKEN", seeds.KEY_VARIABLE)




def find_students(submissions: Path) -> dict[str, Path]:
    """{student: folder} for every non-hidden folder (or link, refused later as that student's row) under ``submissions``."""
    if not submissions.is_dir():
        raise BatchError(f"submissions folder {submissions} does not exist")
    students = {p.name: p for p in sorted(submissions.iterdir())
                if not p.name.startswith(".") and (p.is_symlink() or p.is_dir())}
    if not students:
        raise BatchError(f"{submissions} holds no student folders (one folder per student expected)")
    return students


def take_in(folder: Path | None, submission: Submission | None, dest: Path, *, server: str | None = None,
            token: str | None = None) -> tuple[Intake, dict]:
    """Read one student's five files into ``dest``: (what was read, provenance for the result).

    Without a ``submission`` (no deadline) from ``folder`` as it is; with
    one, its commit from ``folder`` (a local checkout) or from ``server``.
    Raises IntakeError (or BatchError) with the reason for that student's row.
    """
    if submission is None:
        return read_folder(folder, dest), {}
    if not submission.commit:
        raise BatchError(f"not graded: {submission.source}")
    if folder is not None:
        if folder.is_symlink():
            raise BatchError(f"the checkout {folder.name} is a symbolic link (to {os.readlink(folder)[:200]}): not graded")
        intake = read_commit(Path(os.path.abspath(folder)).as_uri(), submission.commit, dest, where="the checkout")
    else:
        intake = read_commit(f"{server.rstrip('/')}/{submission.repository}.git", submission.commit, dest, token=token)
    return intake, {"commit": intake.commit, "server_time": submission.server_time, "source": submission.source}


def grading_key(folder: Path, seed: int, intake: Intake) -> str:
    """A hash of what would be graded: the seed, and each contract file's name, bytes or problem, every part length-prefixed."""
    digest = hashlib.sha256()

    def frame(data: bytes) -> None:
        digest.update(len(data).to_bytes(8, "big") + data)

    frame(b"grading-key/2")
    frame(str(seed).encode())
    for name in CONTRACT_FILES:
        frame(name.encode())
        if name in intake.files:
            frame(b"file")
            frame((folder / name).read_bytes())
        else:
            frame(b"problem")
            frame(intake.problems.get(name, "missing").encode())
    return digest.hexdigest()


def grade_one(student: str, folder: Path, out: Path, seed: int, timeout: float, extra: list[str],
              secret: bool = False) -> tuple[str, str]:
    """Grade one student in its own process; return (student, error message or "")."""
    results, feedback = out / "results", out / "feedback"
    fd = seed_pipe(seed) if secret else None  # a seed of record never goes on the command line
    cmd = [sys.executable, "-m", "grader", "grade", str(folder), "--quiet",
           *(["--secret-seed-fd", str(fd)] if secret else ["--seed", str(seed)]),
           "--json", str(results / f"{student}.json"), "--markdown", str(feedback / f"{student}.md"), *extra]
    env = {k: v for k, v in os.environ.items() if k not in SECRET_VARIABLES}
    try:
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout, env=env,
                              pass_fds=() if fd is None else (fd,))
    except subprocess.TimeoutExpired:
        return student, f"grading did not finish within {timeout:.0f} s"
    finally:
        if fd is not None:
            os.close(fd)
    if proc.returncode != 0 or not (results / f"{student}.json").is_file():
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        return student, f"grader exit code {proc.returncode}: {lines[-1] if lines else 'no message'}"
    return student, ""


def confirm_one(student: str, folder: Path, out: Path, timeout: float, extra: list[str]) -> None:
    """Confirm alone the pending checks of ``student``'s result (``grade --confirm-from``), if it holds any.

    Run once the class's gradings are done, one student at a time, so nothing else of the grader runs beside it.
    A confirmation that fails leaves the result as it was (still pending: the next batch grades it again) and says
    so on stderr.
    """
    results = out / "results" / f"{student}.json"
    if not _pending(results):
        return
    cmd = [sys.executable, "-m", "grader", "grade", str(folder), "--quiet", "--confirm-from", str(results),
           "--json", str(results), "--markdown", str(out / "feedback" / f"{student}.md"), *extra]
    env = {k: v for k, v in os.environ.items() if k not in SECRET_VARIABLES}
    print(f"batch: confirming {student}'s pending checks alone", file=sys.stderr, flush=True)
    try:
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout, env=env)
        problem = "" if proc.returncode == 0 else f"exit code {proc.returncode}: {proc.stderr.strip()[-300:]}"
    except subprocess.TimeoutExpired:
        problem = f"did not finish within {timeout:.0f} s"
    if problem:
        print(f"batch: could not confirm {student}'s checks ({problem}); the next batch grades it again",
              file=sys.stderr, flush=True)


def _pending(results: Path) -> bool:
    """Whether the result in ``results`` holds a check still waiting for its confirmation (True if unreadable)."""
    try:
        return bool(GradeResult.from_dict(json.loads(results.read_text(encoding="utf-8"))).confirmations("pending"))
    except (OSError, ValueError, KeyError, TypeError):
        return True


def _graded_before(out: Path, student: str, key: str) -> bool:
    """Whether ``student``'s result may be kept: the same key, by this grader, with every verdict final."""
    key_file, results = out / "results" / f"{student}.key", out / "results" / f"{student}.json"
    if not (key_file.is_file() and key_file.read_text() == key and results.is_file()):
        return False
    try:
        graded = GradeResult.from_dict(json.loads(results.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError):
        return False
    return graded.grader_sha256 == provenance.this_grader_hash() and not graded.confirmations("pending")


class Progress:
    """A one-line progress bar on stderr (a line per student when stderr is not a terminal)."""

    def __init__(self, total: int):
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.tty = sys.stderr.isatty()

    def step(self, student: str, error: str) -> None:
        self.done += 1
        elapsed = time.monotonic() - self.start
        eta = elapsed / self.done * (self.total - self.done)
        student, error = clean_text(student), clean_text(error)
        filled = int(30 * self.done / self.total)
        bar = f"[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total}  {elapsed:5.0f} s elapsed, ~{eta:4.0f} s left"
        if self.tty:
            print(f"\r{bar}", end="" if self.done < self.total else "\n", file=sys.stderr, flush=True)
        else:
            print(f"{bar}  {student}{': ' + error if error else ''}", file=sys.stderr, flush=True)


def run_batch(submissions: Path | None, out: Path, *, jobs: int = 2, seed: int = 0, record: dict | None = None,
              force: bool = False, timeout: float = GRADE_TIMEOUT_S, extra: list[str] | None = None,
              server: str | None = None, token: str | None = None, seed_key: bytes | None = None,
              files_out: Path | None = None, roster: Path | None = None,
              slice_of: tuple[int, int] | None = None) -> list:
    """Grade every student under ``submissions`` (or, with ``server``, every repository of ``record``) into ``out``.

    ``seed_key`` (the course key) gives each student a secret seed of record
    in place of the class ``seed``; ``files_out`` receives the five files of
    every student read; ``roster`` adds the Canvas gradebook (grader.tools.class_grading.canvas_import); ``slice_of`` (I, K) grades
    only every K-th student from the I-th, in sorted order (the class workflow's slices).

    ``record`` ({student: Submission}, see grader.tools.intake.deadline_record)
    grades each student at the commit the server held at the deadline.
    Returns the gradebook rows.
    """
    if submissions is not None:
        students = find_students(submissions)
    elif server is not None and record is not None:
        students = dict.fromkeys(record)
    else:
        raise BatchError("give a SUBMISSIONS folder, or --from-server with --server-record")
    if slice_of is not None:
        students = dict(sorted(students.items())[slice_of[0]::slice_of[1]])
    for sub in ("results", "feedback"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="grader-batch-") as tmp:
        todo, errors = {}, {}
        for student, folder in students.items():
            submission = None if record is None else record.get(student)
            if record is not None and submission is None:
                errors[student] = "not graded: the server record has no entry for this student"
                continue
            target = Path(tmp) / student
            student_seed = seeds.student_seed(seed_key, student) if seed_key else seed
            try:
                intake, provenance = take_in(folder, submission, target, server=server, token=token)
                key = grading_key(target, student_seed, intake)
                if files_out is not None:
                    keep_files(target, intake, files_out / student)
            except (IntakeError, BatchError) as exc:
                errors[student] = str(exc)
                continue
            except Exception as exc:  # whatever one student's submission does, the batch goes on
                errors[student] = f"could not read the submission: {type(exc).__name__}: {exc}"[:500]
                continue
            if not force and _graded_before(out, student, key):
                continue  # graded before by this grader, nothing changed, every verdict final
            todo[student] = (target, key, provenance, intake, student_seed)
        progress = Progress(len(todo)) if todo else None
        first_pass = [*(extra or []), "--confirm", "later"]  # confirmed below, alone
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [pool.submit(grade_one, s, t, out, student_seed, timeout, first_pass, bool(seed_key))
                       for s, (t, _, _, _, student_seed) in todo.items()]
            for future in as_completed(futures):
                student, error = future.result()
                if error:
                    errors[student] = error
                else:
                    _, key, provenance, intake, _ = todo[student]
                    _finish(out, student, provenance, intake,
                            origin(students[student], submission_of(record, student), server))
                    (out / "results" / f"{student}.key").write_text(key)
                progress.step(student, error)
        for student, (target, *_) in todo.items():
            if student not in errors:
                confirm_one(student, target, out, timeout, extra or [])
    for student, error in errors.items():
        (out / "results" / f"{student}.error.txt").write_text(error + "\n", encoding="utf-8")
        (out / "results" / f"{student}.json").unlink(missing_ok=True)
        (out / "results" / f"{student}.key").unlink(missing_ok=True)
    for student in students:
        if student not in errors:
            (out / "results" / f"{student}.error.txt").unlink(missing_ok=True)
    return write_class_reports([out], out, roster=roster)


def keep_files(folder: Path, intake: Intake, dest: Path) -> None:
    """Copy the contract files that were taken (``intake.files``) from ``folder`` to ``dest`` (replaced)."""
    shutil.rmtree(dest, ignore_errors=True)
    dest.mkdir(parents=True)
    for name in CONTRACT_FILES:
        if name in intake.files:
            shutil.copyfile(folder / name, dest / name)


def origin(folder: Path | None, submission: Submission | None, server: str | None) -> str:
    """What a student's reports name as the submission: the folder as given (never the private copy that was graded),
    or the repository on the server, with the commit when one was recorded."""
    where = os.path.abspath(folder) if folder is not None else f"{server}/{submission.repository}"
    return f"{where} @ {submission.commit[:12]}" if submission is not None and submission.commit else where


def submission_of(record: dict | None, student: str) -> Submission | None:
    return None if record is None else record.get(student)


def _finish(out: Path, student: str, provenance: dict, intake: Intake, named: str) -> None:
    """Record in a student's result where its files came from (``named``, not the private copy that was graded) and
    what could not be taken (JSON and feedback)."""
    path = out / "results" / f"{student}.json"
    result = GradeResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
    result.submission = named
    result.provenance = dict(provenance)
    annotate(result, intake)
    write_text(path, to_json(result))
    write_text(out / "feedback" / f"{student}.md", to_markdown(result))


def parse_deadline(text: str) -> str:
    """Validate an ISO 8601 deadline with a time zone (``2026-12-01T23:59:00+00:00``)."""
    try:
        parse_time(text)
    except ValueError:
        import argparse

        raise argparse.ArgumentTypeError(f"deadline must be ISO 8601 with a time zone, like 2026-12-01T23:59:00+00:00, "
                                         f"got {text!r}") from None
    return text
