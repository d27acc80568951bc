"""Canvas's gradebook import: the class's scores as a CSV Canvas takes (Grades, Import).

Layout (Canvas's own export, which its import reads back): a header
``Student, ID, SIS User ID, SIS Login ID, Section`` then one column per
assignment; a second row ``Points Possible`` with each assignment's maximum;
then one row per student. Canvas matches a row to a student by ``ID`` (its
own user id), else ``SIS User ID`` or ``SIS Login ID``; a column whose name
is not an existing assignment becomes a new one on import.
"""

from __future__ import annotations

import csv
import io
from typing import Iterable, Mapping, Optional, Tuple

from grader.engine.results import GradeResult
from grader.writers.formatting import pts
from grader.writers.gradebook import _csv_cell

CANVAS_COLUMNS = ("Student", "ID", "SIS User ID", "SIS Login ID", "Section")
#: The lab's column in the Canvas gradebook.
ASSIGNMENT = "Data-loading lab"
#: Canvas's label of the row of maxima (its export indents it; the import takes it either way).
POINTS_POSSIBLE = "    Points Possible"

#: One row: the roster's entry ({name, canvas_id, sis_user_id, sis_login_id, section}) and the student's result.
CanvasRow = Tuple[Mapping[str, str], Optional[GradeResult]]


def canvas_csv(rows: Iterable[CanvasRow], assignment: str = ASSIGNMENT) -> str:
    """The import CSV: header, Points Possible (the largest maximum of the results), one line per row.

    A row whose result is None (a grader error) gets an empty cell: Canvas leaves that grade as it is.
    Every text cell is protected against formula injection.
    """
    rows = list(rows)
    maxima = [result.max_score for _, result in rows if result is not None]
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow([*CANVAS_COLUMNS, _csv_cell(assignment)])
    writer.writerow([POINTS_POSSIBLE, "", "", "", "", pts(max(maxima)) if maxima else ""])
    for entry, result in rows:
        writer.writerow([_csv_cell(entry.get(key, "")) for key in ("name", "canvas_id", "sis_user_id", "sis_login_id", "section")]
                        + ["" if result is None else pts(result.score)])
    return buf.getvalue()
