"""The gradebook joined to the instructor's roster, as Canvas's gradebook import (``batch``/``merge --roster``).

The roster is a CSV with the columns ``student_id`` (the grader's student id:
the folder or repository name), ``name``, ``sis_user_id``, ``sis_login_id``
and ``section``, and optionally ``canvas_id`` (Canvas's own user id, its
column ``ID``). :func:`write_canvas` writes ``canvas.csv``
(:mod:`grader.writers.canvas`) and says, on stderr and in the class summary,
who is on one side only: graded but not in the roster, in the roster but not
graded, graded without a score (a grader error).
"""

from __future__ import annotations

import csv
import io
import sys
from pathlib import Path

from grader.writers.canvas import canvas_csv
from grader.writers.markdown import md_inline

ROSTER_COLUMNS = ("student_id", "name", "sis_user_id", "sis_login_id", "section")
#: The largest roster read (a class of thousands is a few hundred kilobytes).
MAX_ROSTER_BYTES = 8 << 20


class RosterError(ValueError):
    """The roster cannot be used; the message says what to fix."""


def read_roster(path: Path) -> dict[str, dict[str, str]]:
    """{student_id: roster entry} from the CSV at ``path``; RosterError naming the problem (and the line)."""
    try:
        if not path.is_file():
            raise RosterError(f"roster {path} does not exist or is not a file")
        if path.stat().st_size > MAX_ROSTER_BYTES:
            raise RosterError(f"roster {path} is larger than {MAX_ROSTER_BYTES >> 20} MB")
        text = path.read_text(encoding="utf-8-sig")
    except (OSError, UnicodeDecodeError) as exc:
        raise RosterError(f"roster {path} cannot be read: {exc}") from None
    reader = csv.DictReader(io.StringIO(text))
    columns = [c.strip() for c in reader.fieldnames or []]
    missing = [c for c in ROSTER_COLUMNS if c not in columns]
    if missing:
        raise RosterError(f"roster {path} lacks the column(s) {', '.join(missing)} (expected {', '.join(ROSTER_COLUMNS)}; "
                          f"found {', '.join(columns) or 'none'})")
    roster = {}
    try:
        for line, row in enumerate(reader, start=2):
            entry = {(k or "").strip(): (v or "").strip() for k, v in row.items() if isinstance(v, str)}
            student = entry.get("student_id", "")
            if not student:
                raise RosterError(f"roster {path}, line {line}: no student_id")
            if student in roster:
                raise RosterError(f"roster {path}, line {line}: student_id {student!r} appears twice")
            roster[student] = entry
    except csv.Error as exc:
        raise RosterError(f"roster {path} is not CSV: {exc}") from None
    return roster


def write_canvas(rows: list, roster_path: Path, out: Path) -> str:
    """Write ``out/canvas.csv`` from gradebook ``rows`` and the roster; return the summary's Markdown section."""
    roster = read_roster(roster_path)
    graded = {student: result for student, result, _ in rows}
    joined = [(roster[s], graded[s]) for s in roster if s in graded]
    (out / "canvas.csv").write_text(canvas_csv(joined), encoding="utf-8")
    lists = {"graded but not in the roster (not in canvas.csv)": sorted(set(graded) - set(roster)),
             "in the roster but not graded (not in canvas.csv)": sorted(set(roster) - set(graded)),
             "graded without a score (a grader error: an empty cell in canvas.csv)":
                 sorted(s for s in roster if s in graded and graded[s] is None)}
    lines = ["", "### Canvas gradebook", "", f"canvas.csv: {len(joined)} students of the roster's {len(roster)}.", ""]
    for label, students in lists.items():
        if students:
            print(f"canvas.csv: {len(students)} {label}: {', '.join(students)}", file=sys.stderr)
            lines.append(f"- {len(students)} {label}: {', '.join(md_inline(s) for s in students)}")
    return "\n".join(lines) + "\n"
