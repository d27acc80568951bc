"""Grade a whole class: ``python -m grader batch`` (``merge`` combines several batch outputs).

``batch SUBMISSIONS --out DIR`` grades every folder directly under
SUBMISSIONS, one student each (the folder name is the student's name). A
folder is either a submission itself (the five exercise files) or a
checkout of the student template, whose ``exercises/`` folder is graded.
With ``--deadline`` and ``--server-record``, each git checkout is graded at
the commit GitHub held at the deadline, as the record says (written by
``python -m grader record-submissions``, which asks GitHub for server times:
a commit's own date can be forged), read with ``git show`` (the checkout is
not touched); the gradebook says which commit, which server time and which
push or Classroom 50 release each grade comes from.

Every student is graded by its own ``python -m grader grade`` process,
``--jobs`` at a time, with one seed for the whole class (so everyone gets
the same inputs; it is in the gradebook). A submission that breaks the
grader, or a grading that outlives ``--timeout``, gives that student a
"grader error" row; the batch goes on. DIR then holds:

    results/<student>.json         the full result (the grade of record)
    results/<student>.error.txt    why a student has no result
    results/<student>.key          what was graded (files' hash and seed): a rerun skips
                                   students whose key is unchanged, unless --force
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
import stat
import subprocess
import sys
import tempfile
import time
from concurrent.futures import ThreadPoolExecutor, as_completed
from pathlib import Path

from grader.engine.results import GradeResult
from grader.isolation import LEVELS, meets
from grader.paths import REPO
from grader.registry import CONTRACT_FILES
from grader.report_files import write_text
from grader.sandbox.host import expected_isolation
from grader.tools.record_submissions import parse_time, read_record
from grader.writers import class_summary_markdown, gradebook_csv, to_json
from grader.writers.text import JSON_REPORT_BYTES

GRADE_TIMEOUT_S = 900


class BatchError(ValueError):
    """Bad input to batch or merge; the message says what to fix."""


def find_students(submissions: Path) -> dict[str, Path]:
    """{student: folder} for every non-hidden folder directly under ``submissions``."""
    if not submissions.is_dir():
        raise BatchError(f"submissions folder {submissions} does not exist")
    students = {p.name: p for p in sorted(submissions.iterdir()) if p.is_dir() and not p.name.startswith(".")}
    if not students:
        raise BatchError(f"{submissions} holds no student folders (one folder per student expected)")
    return students


def exercise_folder(folder: Path) -> Path:
    """Where the five files are: ``exercises/`` of a template checkout, else the folder itself.

    Raises BatchError when ``exercises`` is a symbolic link: it could lead
    anywhere on the grading machine, this repository's solutions/ included.
    """
    exercises = folder / "exercises"
    if exercises.is_symlink():
        raise BatchError(f"exercises is a symbolic link (to {os.readlink(exercises)}), not a folder: not graded")
    return exercises if exercises.is_dir() else folder


def snapshot_at_commit(folder: Path, commit: str, dest: Path) -> None:
    """Copy the exercise files of ``commit`` (from the checkout's history) into ``dest``.

    Raises BatchError when the checkout does not have that commit (clone the
    whole history, not a shallow copy).
    """
    def git(*args, text=True):
        return subprocess.run(["git", "-C", str(folder), *args], capture_output=True, text=text, timeout=60)

    if git("cat-file", "-e", f"{commit}^{{commit}}").returncode != 0:
        raise BatchError(f"the checkout has no commit {commit[:12]} (the one on the server at the deadline); "
                         "clone its whole history")
    prefix = "exercises/" if git("cat-file", "-e", f"{commit}:exercises").returncode == 0 else ""
    dest.mkdir(parents=True, exist_ok=True)
    for name in CONTRACT_FILES:
        shown = git("show", f"{commit}:{prefix}{name}", text=False)
        if shown.returncode == 0:
            (dest / name).write_bytes(shown.stdout)


def grading_key(folder: Path, seed: int) -> str:
    """A hash of what would be graded: the five files' bytes and the seed."""
    digest = hashlib.sha256(f"seed={seed}".encode())
    for name in CONTRACT_FILES:
        path = folder / name
        digest.update(name.encode() + (path.read_bytes() if path.is_file() else b"<missing>"))
    return digest.hexdigest()


def grade_one(student: str, folder: Path, out: Path, seed: int, timeout: float, extra: list[str]) -> tuple[str, str]:
    """Grade one student in its own process; return (student, error message or "")."""
    results, feedback = out / "results", out / "feedback"
    cmd = [sys.executable, "-m", "grader", "grade", str(folder), "--quiet", "--seed", str(seed),
           "--json", str(results / f"{student}.json"), "--markdown", str(feedback / f"{student}.md"), *extra]
    try:
        proc = subprocess.run(cmd, cwd=REPO, capture_output=True, text=True, timeout=timeout)
    except subprocess.TimeoutExpired:
        return student, f"grading did not finish within {timeout:.0f} s"
    if proc.returncode != 0 or not (results / f"{student}.json").is_file():
        lines = [line for line in proc.stderr.splitlines() if line.strip()]
        return student, f"grader exit code {proc.returncode}: {lines[-1] if lines else 'no message'}"
    return student, ""


class Progress:
    """A one-line progress bar on stderr (a line per student when stderr is not a terminal)."""

    def __init__(self, total: int):
        self.total, self.done, self.start = total, 0, time.monotonic()
        self.tty = sys.stderr.isatty()

    def step(self, student: str, error: str) -> None:
        self.done += 1
        elapsed = time.monotonic() - self.start
        eta = elapsed / self.done * (self.total - self.done)
        filled = int(30 * self.done / self.total)
        bar = f"[{'#' * filled}{'.' * (30 - filled)}] {self.done}/{self.total}  {elapsed:5.0f} s elapsed, ~{eta:4.0f} s left"
        if self.tty:
            print(f"\r{bar}", end="" if self.done < self.total else "\n", file=sys.stderr, flush=True)
        else:
            print(f"{bar}  {student}{': ' + error if error else ''}", file=sys.stderr, flush=True)


def run_batch(submissions: Path, out: Path, *, jobs: int = 2, seed: int = 0, record: dict | None = None,
              force: bool = False, timeout: float = GRADE_TIMEOUT_S, extra: list[str] | None = None) -> list:
    """Grade every student under ``submissions`` into ``out``; return the gradebook rows.

    ``record`` ({student: Submission}, see grader.tools.record_submissions) grades each
    student at the commit the server held at the deadline.
    """
    students = find_students(submissions)
    for sub in ("results", "feedback"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="grader-batch-") as tmp:
        todo, errors = {}, {}
        for student, folder in students.items():
            try:
                target = exercise_folder(folder)
            except BatchError as exc:
                errors[student] = str(exc)
                continue
            provenance = {}
            if record is not None:
                submission = record.get(student)
                if submission is None or not submission.commit:
                    errors[student] = (f"not graded: {submission.source}" if submission
                                       else "not graded: the server record has no entry for this student")
                    continue
                target = Path(tmp) / student
                try:
                    snapshot_at_commit(folder, submission.commit, target)
                except BatchError as exc:
                    errors[student] = str(exc)
                    continue
                provenance = {"commit": submission.commit, "server_time": submission.server_time,
                              "source": submission.source}
            key = grading_key(target, seed)
            key_file = out / "results" / f"{student}.key"
            if not force and key_file.is_file() and key_file.read_text() == key and (out / "results" / f"{student}.json").is_file():
                continue  # graded before, nothing changed
            todo[student] = (target, key, provenance)
        progress = Progress(len(todo)) if todo else None
        with ThreadPoolExecutor(max_workers=max(1, jobs)) as pool:
            futures = [pool.submit(grade_one, s, t, out, seed, timeout, extra or []) for s, (t, _, _) in todo.items()]
            for future in as_completed(futures):
                student, error = future.result()
                if error:
                    errors[student] = error
                else:
                    _, key, provenance = todo[student]
                    if provenance:
                        _add_provenance(out / "results" / f"{student}.json", provenance)
                    (out / "results" / f"{student}.key").write_text(key)
                progress.step(student, error)
    for student, error in errors.items():
        (out / "results" / f"{student}.error.txt").write_text(error + "\n", encoding="utf-8")
        (out / "results" / f"{student}.json").unlink(missing_ok=True)
    for student in students:
        if student not in errors:
            (out / "results" / f"{student}.error.txt").unlink(missing_ok=True)
    return write_class_reports([out], out)


def _add_provenance(path: Path, provenance: dict) -> None:
    """Record in a student's result which commit and server time it was graded from."""
    result = GradeResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
    result.provenance = dict(provenance)
    write_text(path, to_json(result))


#: The largest per-student report merge reads: twice what the grader ever writes (writers.text.JSON_REPORT_BYTES).
MAX_REPORT_BYTES = 2 * JSON_REPORT_BYTES
#: The most characters of a student's .error.txt that reach the gradebook.
MAX_ERROR_CHARS = 2000


def collect_rows(dirs: list[Path]) -> list:
    """Gradebook rows (student, GradeResult or None, error) from batch output folders.

    Reads one report at a time and keeps only its scores (:meth:`GradeResult.scores_only`),
    so memory does not grow with any one report; a report that is not a regular file, is
    larger than :data:`MAX_REPORT_BYTES` or does not parse becomes that student's error row.
    """
    rows = {}
    for folder in dirs:
        results = folder / "results"
        if not results.is_dir():
            raise BatchError(f"{folder} is not a batch output folder (no results/ inside)")
        for path in sorted(results.glob("*.json")):
            rows[path.stem] = _report_row(path)
        for path in sorted(results.glob("*.error.txt")):
            student = path.name.removesuffix(".error.txt")
            rows.setdefault(student, (student, None, _read_small(path, MAX_ERROR_CHARS).strip()))
    return [rows[s] for s in sorted(rows)]


def _report_row(path: Path) -> tuple:
    """(student, scores of the report at ``path``, "") or (student, None, why it cannot be read)."""
    try:
        info = path.lstat()
        if not stat.S_ISREG(info.st_mode):
            return path.stem, None, f"{path.name} is not a regular file: regrade this student"
        if info.st_size > MAX_REPORT_BYTES:
            return path.stem, None, (f"{path.name} holds {info.st_size:,} bytes, more than the grader ever writes "
                                     f"({JSON_REPORT_BYTES:,}): regrade this student")
        return path.stem, GradeResult.from_dict(json.loads(path.read_text(encoding="utf-8"))).scores_only(), ""
    except (OSError, ValueError, KeyError, TypeError) as exc:
        return path.stem, None, f"{path.name} cannot be read ({type(exc).__name__}: {str(exc)[:200]}): regrade this student"


def _read_small(path: Path, limit: int) -> str:
    """At most ``limit`` characters of the regular file ``path`` ("" if it is anything else)."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError:
        return ""
    with os.fdopen(fd, "rb") as fh:
        if not stat.S_ISREG(os.fstat(fh.fileno()).st_mode):
            return ""
        return fh.read(4 * limit).decode("utf-8", "replace")[:limit]


def write_class_reports(dirs: list[Path], out: Path) -> list:
    """Write gradebook.csv and summary.md for every student found in ``dirs`` into ``out``."""
    rows = collect_rows(dirs)
    out.mkdir(parents=True, exist_ok=True)
    (out / "gradebook.csv").write_text(gradebook_csv(rows), encoding="utf-8")
    (out / "summary.md").write_text(class_summary_markdown(rows), encoding="utf-8")
    return rows


def merge(dirs: list[Path], out: Path) -> list:
    """Combine batch outputs (e.g. one per matrix slice) into ``out``: regular files only, copied as streams."""
    for sub in ("results", "feedback"):
        (out / sub).mkdir(parents=True, exist_ok=True)
    for folder in dirs:
        for sub in ("results", "feedback"):
            source = folder / sub
            if source.is_dir() and source.resolve() != (out / sub).resolve():
                for path in source.iterdir():
                    if path.is_file() and not path.is_symlink():
                        shutil.copyfile(path, out / sub / path.name)
    return write_class_reports([out], out)


def _deadline(text: str) -> str:
    """Validate an ISO 8601 deadline with a time zone (``2026-12-01T23:59:00+00:00``)."""
    try:
        parse_time(text)
    except ValueError:
        import argparse

        raise argparse.ArgumentTypeError(f"deadline must be ISO 8601 with a time zone, like 2026-12-01T23:59:00+00:00, "
                                         f"got {text!r}") from None
    return text


def report_rows(rows, out: Path) -> int:
    graded = sum(1 for _, result, _ in rows if result is not None)
    print(f"{graded} of {len(rows)} students graded; gradebook: {out / 'gradebook.csv'}, summary: {out / 'summary.md'}")
    for student, result, error in rows:
        if result is None:
            print(f"  {student}: {error}")
    return 0


HELP = "grade every student folder under SUBMISSIONS (the grade of record: in the jail unless --min-isolation says otherwise)"


def add_arguments(parser) -> None:
    parser.add_argument("submissions", type=Path, help="a folder with one folder per student")
    parser.add_argument("--out", type=Path, required=True, help="where results/, feedback/, gradebook.csv and summary.md go")
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2),
                       help="students graded at once (default: half the CPUs; each grading uses about 2 cores at peak)")
    parser.add_argument("--seed", type=int, default=0, help="one seed for the whole class (default 0)")
    parser.add_argument("--deadline", type=_deadline,
                       help="grade each git checkout at the commit the server held at this ISO 8601 time (needs --server-record)")
    parser.add_argument("--server-record", type=Path, metavar="FILE",
                       help="what GitHub held at the deadline, from python -m grader record-submissions")
    parser.add_argument("--force", action="store_true", help="grade again students whose files and seed did not change")
    parser.add_argument("--timeout", type=float, default=GRADE_TIMEOUT_S, help="seconds allowed per student (default 900)")
    parser.add_argument("--gpu", choices=("auto", "on", "off"), default="off", help="pin_memory checks on CUDA (default off)")
    parser.add_argument("--min-isolation", choices=LEVELS, default="jail",
                       help="refuse to grade below this isolation level (default jail: the grade of record; contained: "
                            "Landlock and seccomp without namespaces; weak: any, the reports say the level)")


def run(args) -> int:
    if args.jobs < 1:
        print("python -m grader batch: error: --jobs must be at least 1", file=sys.stderr)
        return 2
    expected = expected_isolation()
    if not meets(expected.level, args.min_isolation):
        print(f"python -m grader batch: error: gradings here would get isolation {expected.level} ({expected.reason}), "
              f"below --min-isolation {args.min_isolation}. Install bubblewrap and run as root (README.md, The jail), "
              "or lower --min-isolation for a grading that is not the grade of record.", file=sys.stderr)
        return 2
    try:
        record = _record(args.deadline, args.server_record)
        rows = run_batch(args.submissions, args.out, jobs=args.jobs, seed=args.seed, record=record,
                         force=args.force, timeout=args.timeout, extra=["--gpu", args.gpu, "--min-isolation", args.min_isolation])
    except BatchError as exc:
        print(f"python -m grader batch: error: {exc}", file=sys.stderr)
        return 2
    return report_rows(rows, args.out)


def _record(deadline: str | None, path: Path | None) -> dict | None:
    """The server record for ``--deadline``, or None without a deadline; BatchError when they do not go together."""
    if deadline is None and path is None:
        return None
    if deadline is None or path is None:
        raise BatchError("--deadline and --server-record go together: a commit's own date can be forged, so the "
                         "deadline is judged by the times GitHub recorded (python -m grader record-submissions)")
    try:
        record_deadline = json.loads(path.read_text(encoding="utf-8")).get("deadline", "")
        same = parse_time(record_deadline) == parse_time(deadline)
        record = read_record(path)
    except (OSError, ValueError, AttributeError) as exc:
        raise BatchError(f"--server-record {path}: {exc}") from None
    if not same:
        raise BatchError(f"--server-record {path} was made for the deadline {record_deadline}, not {deadline}")
    return record
