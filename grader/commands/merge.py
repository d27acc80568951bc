"""``python -m grader merge DIR... --out OUT``: combine the outputs of several batch runs (a class graded in slices).

With ``--roster CSV`` (columns student_id, name, sis_user_id, sis_login_id,
section, and optionally canvas_id) OUT also gets ``canvas.csv``, the
gradebook as Canvas's gradebook import takes it (grader/tools/class_grading/canvas_import.py);
who is graded but not in the roster, or in it but not graded, is listed on
stderr and in summary.md.
"""

from __future__ import annotations

from pathlib import Path

from grader.commands import CommandError
from grader.tools.class_grading.canvas_import import RosterError, read_roster
from grader.tools.class_grading.class_reports import BatchError, merge, report_rows

HELP = "combine batch outputs (the slices of a class) into one gradebook and summary (and Canvas's import, with --roster)"


def add_arguments(parser) -> None:
    parser.add_argument("dirs", type=Path, nargs="+", help="batch output folders")
    parser.add_argument("--out", type=Path, required=True, help="where the merged outputs go")
    parser.add_argument("--roster", type=Path, metavar="CSV",
                        help="the class roster (student_id,name,sis_user_id,sis_login_id,section[,canvas_id]): also "
                             "write canvas.csv for Canvas's gradebook import")


def run(args) -> int:
    try:
        if args.roster is not None:
            read_roster(args.roster)  # a bad roster stops before anything is written
        rows = merge(args.dirs, args.out, roster=args.roster)
    except (BatchError, RosterError) as exc:
        raise CommandError(str(exc)) from exc
    return report_rows(rows, args.out)
