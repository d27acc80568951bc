"""``python -m grader review``: the command line of :mod:`grader.tools.class_grading.integrity_review`."""

from __future__ import annotations

from pathlib import Path

from grader.commands import CommandError
from grader.text import clean_text
from grader.tools.class_grading.integrity_review import (
    DEFAULT_THRESHOLD,
    STUDENT_BUDGET_S,
    ReviewError,
    budget_value,
    review,
    threshold_value,
)

HELP = "the instructor's private review of a class: similarity, suspicious constructs, integrity flags (no score changes)"


def add_arguments(parser) -> None:
    parser.add_argument("submissions", type=Path, nargs="+",
                        help="folders holding one folder per student with its five files (batch --files-out; "
                             "several: the slices of a class)")
    parser.add_argument("--out", type=Path, required=True, help="where review.md, the CSVs and similarity/ go")
    parser.add_argument("--threshold", type=threshold_value, default=DEFAULT_THRESHOLD,
                        help=f"list pairs at or above this similarity, 0 to 1 (default {DEFAULT_THRESHOLD})")
    parser.add_argument("--results", type=Path, metavar="DIR", help="a batch or merge output folder: its integrity flags")
    parser.add_argument("--boilerplate", type=Path, action="append", metavar="DIR",
                        help="code every student was handed (default: exercises/, the stubs); repeatable")
    parser.add_argument("--reference", type=Path, metavar="DIR",
                        help="the reference (e.g. solutions/): subtracted from the pairs too, and each student compared with it")
    parser.add_argument("--student-budget", type=budget_value, default=STUDENT_BUDGET_S, metavar="SECONDS",
                        help=f"seconds of construct scanning per student; a student over it is listed as such "
                             f"(default {STUDENT_BUDGET_S:g})")


def run(args) -> int:
    try:
        found = review(args.submissions, args.out, threshold=args.threshold, results=args.results,
                       boilerplate=args.boilerplate, reference=args.reference, student_budget_s=args.student_budget)
    except (ReviewError, OSError) as exc:
        raise CommandError(str(exc)) from exc
    students = sorted({s for s, _ in found["constructs"]})
    print(clean_text(f"review written to {args.out / 'review.md'} in {found['seconds']} s: {len(found['pairs'])} pairs at or above "
          f"{args.threshold:g}, {len(found['constructs'])} constructs in {len(students)} students, "
          f"{len(found['flags'])} integrity flags, {len({s for s, _ in found['over']})} students over a limit"))
    return 0
