"""``python -m grader publish``: the command line of :mod:`grader.tools.delivery.published_grader`."""

from __future__ import annotations

from pathlib import Path

from grader.commands import CommandError
from grader.tools.authoring import rebuilds
from grader.tools.delivery.published_grader import PublishError, publish

HELP = "write the grader alone (no solutions, no tests) for the student workflow"


def add_arguments(parser) -> None:
    parser.add_argument("out", type=Path, help="the folder (a clone of the grader repository)")
    parser.add_argument("--force", action="store_true", help="replace the contents of a non-empty OUT (keeps .git)")


def run(args) -> int:
    try:
        files = publish(args.out, force=args.force)
    except PublishError as exc:
        raise CommandError(str(exc)) from exc
    rebuilds.record('published grader', args.out)
    print(f"wrote {len(files)} files to {args.out}: commit and push them to the grader repository")
    return 0
