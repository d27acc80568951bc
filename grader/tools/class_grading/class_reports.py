"""The class's reports: the gradebook, the summary and Canvas's import, made from the per-student JSON reports.

Used by ``batch`` (after grading) and by ``merge`` (the slices of a class
graded by a matrix job). Reads one report at a time and keeps only its
scores, so a class's memory does not grow with any one student: a report
over :data:`MAX_REPORT_BYTES`, or one that cannot be read, is that
student's error row.
"""

from __future__ import annotations

import json
import os
import shutil
import stat
from pathlib import Path

from grader.engine.results import GradeResult
from grader.text import clean_text
from grader.writers import class_summary_markdown, gradebook_csv
from grader.writers.formatting import JSON_REPORT_BYTES

#: The largest per-student report merge reads: twice what the grader ever writes (writers.formatting.JSON_REPORT_BYTES).
MAX_REPORT_BYTES = 2 * JSON_REPORT_BYTES
#: The most characters of a student's .error.txt that reach the gradebook.
MAX_ERROR_CHARS = 2000


class BatchError(ValueError):
    """Bad input to batch or merge; the message says what to fix."""



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
            rows.setdefault(student, (student, None, clean_text(_read_small(path, MAX_ERROR_CHARS)).strip()))
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


def write_class_reports(dirs: list[Path], out: Path, roster: Path | None = None) -> list:
    """Write gradebook.csv and summary.md for every student found in ``dirs`` into ``out``
    (and, with a ``roster``, canvas.csv: :func:`grader.tools.class_grading.canvas_import.write_canvas`)."""
    rows = collect_rows(dirs)
    out.mkdir(parents=True, exist_ok=True)
    (out / "gradebook.csv").write_text(gradebook_csv(rows), encoding="utf-8")
    summary = class_summary_markdown(rows)
    if roster is not None:
        from grader.tools.class_grading.canvas_import import write_canvas

        summary += write_canvas(rows, roster, out)
    (out / "summary.md").write_text(summary, encoding="utf-8")
    return rows


def merge(dirs: list[Path], out: Path, roster: Path | None = None) -> list:
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
    return write_class_reports([out], out, roster=roster)


def report_rows(rows, out: Path) -> int:
    graded = sum(1 for _, result, _ in rows if result is not None)
    print(clean_text(f"{graded} of {len(rows)} students graded; gradebook: {out / 'gradebook.csv'}, summary: {out / 'summary.md'}"))
    for student, result, error in rows:
        if result is None:
            print(clean_text(f"  {student}: {error}"))
    return 0
