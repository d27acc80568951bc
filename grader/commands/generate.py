"""``python -m grader generate``: the command line of :mod:`grader.tools.authoring.stubs`."""

from __future__ import annotations

import sys
from pathlib import Path

from grader.commands import CommandError
from grader.paths import REPO
from grader.tools.authoring.stubs import (
    StubError,
    stale_files,
    write_exercises,
)

HELP = "write exercises/ (stubs) from solutions/ (--check only compares)"


def add_arguments(parser) -> None:
    parser.add_argument("--solutions", type=Path, default=REPO / "solutions", help="reference solutions (default: solutions/)")
    parser.add_argument("--exercises", type=Path, default=REPO / "exercises", help="where the stubs go (default: exercises/)")
    parser.add_argument("--check", action="store_true", help="only report files that differ; exit 1 if any")


def run(args) -> int:
    try:
        if args.check:
            stale = stale_files(args.solutions, args.exercises)
            for name in stale:
                print(f"{args.exercises / name} differs from what generation writes", file=sys.stderr)
            if stale:
                print("run: python -m grader generate", file=sys.stderr)
            return 1 if stale else 0
        changed = write_exercises(args.solutions, args.exercises)
    except StubError as exc:
        raise CommandError(str(exc)) from exc
    print(f"wrote {len(changed)} file(s) to {args.exercises}: {', '.join(changed) or 'nothing changed'}")
    return 0
