"""``python -m grader classroom50 OUT``: the Classroom 50 autograder folder (see grader/tools/delivery/host_bundles.py)."""

from __future__ import annotations

from pathlib import Path

from grader.commands import CommandError
from grader.tools.authoring import rebuilds
from grader.tools.delivery.host_bundles import classroom50_bundle
from grader.tools.delivery.published_grader import PublishError

HELP = "write the Classroom 50 autograder folder (autograder.py and the grader)"


def add_arguments(parser) -> None:
    parser.add_argument("out", type=Path, help="the folder to write (then copy it to CLASSROOM/autograders/ASSIGNMENT/)")
    parser.add_argument("--force", action="store_true", help="replace the contents of a non-empty OUT (keeps .git)")


def run(args) -> int:
    try:
        files = classroom50_bundle(args.out, force=args.force)
    except PublishError as exc:
        raise CommandError(str(exc)) from exc
    rebuilds.record('Classroom 50 bundle', args.out)
    print(f"wrote {len(files)} files to {args.out}; see {args.out / 'README.md'} for the assignment settings")
    return 0
