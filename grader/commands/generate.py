"""``python -m grader generate``: the command line of :mod:`grader.tools.authoring.stubs`."""

from __future__ import annotations

import sys
from pathlib import Path

from grader.commands import CommandError
from grader.paths import REPO
from grader.tools.authoring import signature_defaults
from grader.tools.authoring.stubs import (
    StubError,
    stale_files,
    write_exercises,
)

HELP = "write exercises/ (stubs) and grader/engine/defaults.toml from solutions/ (--check only compares)"


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
            for target in signature_defaults.stale(args.solutions, REPO):
                stale.append(str(target))
                print(f"{target} differs from the defaults of the signatures in {args.solutions}", file=sys.stderr)
            if stale:
                print("run: python -m grader generate", file=sys.stderr)
            return 1 if stale else 0
        changed = write_exercises(args.solutions, args.exercises)
        defaults = signature_defaults.write(args.solutions, REPO)
    except (StubError, SyntaxError) as exc:
        raise CommandError(str(exc)) from exc
    print(f"wrote {len(changed)} file(s) to {args.exercises}: {', '.join(changed) or 'nothing changed'}")
    for target in defaults:
        print(f"wrote {target} (the defaults of the signatures in {args.solutions})")
    return 0
