"""``python -m grader regrade``: the command line of :mod:`grader.tools.class_grading.regrade_diff`."""

from __future__ import annotations

from pathlib import Path

from grader.commands import CommandError
from grader.text import clean_text
from grader.tools.class_grading.regrade_diff import (
    RegradeError,
    differences,
    read_report,
    regrade,
)

HELP = "grade a submission again as a JSON report says it was graded, and print what differs (exit 1 if the grade does)"


def add_arguments(parser) -> None:
    parser.add_argument("report", type=Path, help="a JSON report (results/<student>.json, grade --json)")
    parser.add_argument("submission", type=Path, help="the folder with the five files that were graded")
    parser.add_argument("--json", type=Path, metavar="FILE", help="keep the new report here")


def run(args) -> int:
    try:
        original = read_report(args.report)
        new = regrade(original, args.submission, keep=args.json)
    except RegradeError as exc:
        raise CommandError(str(exc)) from exc
    grade, environment = differences(original, new)
    seed = "secret seed of record" if original.seed_secret else "seed"
    print(clean_text(f"regraded {args.submission} with the report's {seed} {original.seed}: "
                     + ("the same grade by the same grader" if not grade else f"{len(grade)} difference(s)")))
    for line in grade + environment:
        print(clean_text(f"  {line}"))
    if not environment:
        print("  environment: the same")
    return 1 if grade else 0
