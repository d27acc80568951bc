"""``python -m grader dry-run CLASS_FOLDER --out DIR``: the command line of :mod:`grader.tools.class_grading.dry_run`."""

from __future__ import annotations

from pathlib import Path

from grader.commands import CommandError
from grader.isolation import LEVELS
from grader.tools.authoring.example_class import make_example_class
from grader.tools.class_grading.dry_run import DryRunError, dry_run

HELP = ("run the class workflow's steps (batch in slices, merge, review, Canvas) over local student folders, or over an "
        "example class of six (--example-class)")


def add_arguments(parser) -> None:
    parser.add_argument("class_folder", type=Path, nargs="?",
                        help="one folder per student, named as the student (the repository's name)")
    parser.add_argument("--example-class", type=Path, metavar="FOLDER", nargs="?", const=Path("build/example-class"),
                        help="first make the class of six an instructor would build (two full marks, the stubs, one "
                             "single-promise bug, a copied pair with renamed names) in FOLDER (default "
                             "build/example-class), then dry-run it")
    parser.add_argument("--out", type=Path, default=Path("build/dry-run"),
                        help="where everything goes, with INDEX.md (replaced; default build/dry-run)")
    parser.add_argument("--slices", type=int, help="how many slices (default: as the workflow's slices: auto)")
    parser.add_argument("--roster", type=Path, metavar="CSV", help="the class roster: also write Canvas's gradebook import")
    parser.add_argument("--jobs", type=int, default=2, help="students graded at a time per slice (default 2, as the workflow)")
    parser.add_argument("--min-isolation", choices=LEVELS, default="jail",
                        help="refuse to grade below this level (default jail, as the workflow)")


def run(args) -> int:
    if (args.class_folder is None) == (args.example_class is None):
        raise CommandError("give a CLASS_FOLDER (one folder per student) or --example-class, not both"
                           if args.class_folder else "give a CLASS_FOLDER (one folder per student), or --example-class "
                           "to make a class of six and dry-run it")
    if args.example_class is not None:
        try:
            students = make_example_class(args.example_class)
        except (FileExistsError, OSError) as exc:
            raise CommandError(f"--example-class {args.example_class}: {exc}") from exc
        print(f"made {len(students)} students in {args.example_class} (what each must show: its README.md)")
        for student in students:
            print(f"  {student.name}: {student.what}; expect {student.expect}")
        args.class_folder = args.example_class
    try:
        steps = dry_run(args.class_folder, args.out, slices=args.slices, roster=args.roster, jobs=args.jobs,
                        min_isolation=args.min_isolation)
    except DryRunError as exc:
        raise CommandError(str(exc)) from exc
    print(f"what is where: {args.out / 'INDEX.md'}")
    return 1 if any(s.status != 0 for s in steps) else 0
