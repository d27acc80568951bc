"""``python -m grader merge DIR... --out OUT``: combine the outputs of several batch runs (a class graded in slices)."""

from __future__ import annotations

from pathlib import Path

from grader.cli import CommandError
from grader.tools.batch import BatchError, merge, report_rows

HELP = "combine batch outputs (the slices of a class) into one gradebook and summary"


def add_arguments(parser) -> None:
    parser.add_argument("dirs", type=Path, nargs="+", help="batch output folders")
    parser.add_argument("--out", type=Path, required=True, help="where the merged outputs go")


def run(args) -> int:
    try:
        rows = merge(args.dirs, args.out)
    except BatchError as exc:
        raise CommandError(str(exc)) from exc
    return report_rows(rows, args.out)
