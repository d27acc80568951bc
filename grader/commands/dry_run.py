"""``python -m grader dry-run CLASS_FOLDER --out DIR``: the command line of :mod:`grader.tools.class_grading.dry_run`."""

from __future__ import annotations

from pathlib import Path

from grader.commands import CommandError
from grader.isolation import LEVELS
from grader.tools.class_grading.dry_run import DryRunError, dry_run

HELP = "run the class workflow's steps (batch in slices, merge, review, Canvas) over local student folders"


def add_arguments(parser) -> None:
    parser.add_argument("class_folder", type=Path, help="one folder per student, named as the student (the repository's name)")
    parser.add_argument("--out", type=Path, default=Path("build/dry-run"),
                        help="where everything goes, with INDEX.md (replaced; default build/dry-run)")
    parser.add_argument("--slices", type=int, help="how many slices (default: as the workflow's slices: auto)")
    parser.add_argument("--roster", type=Path, metavar="CSV", help="the class roster: also write Canvas's gradebook import")
    parser.add_argument("--jobs", type=int, default=2, help="students graded at a time per slice (default 2, as the workflow)")
    parser.add_argument("--min-isolation", choices=LEVELS, default="jail",
                        help="refuse to grade below this level (default jail, as the workflow)")


def run(args) -> int:
    try:
        steps = dry_run(args.class_folder, args.out, slices=args.slices, roster=args.roster, jobs=args.jobs,
                        min_isolation=args.min_isolation)
    except DryRunError as exc:
        raise CommandError(str(exc)) from exc
    print(f"what is where: {args.out / 'INDEX.md'}")
    return 1 if any(s.status != 0 for s in steps) else 0
