"""``python -m grader release``: the command line of :mod:`grader.tools.delivery.student_template`."""

from __future__ import annotations

import argparse
from pathlib import Path

from grader.commands import CommandError
from grader.paths import REPO
from grader.tools.authoring import rebuilds
from grader.tools.delivery.student_template import (
    ReleaseError,
    release,
)

HELP = "write the student template repository (stubs, public tests, handout, workflow) into OUT"
DESCRIPTION = ("Write the student repository into OUT: exercises/ (stubs), the public tests, requirements, LAB.md, "
               "lab.toml, a student README and the Grade workflow. Nothing from solutions/ or grader/ goes in.")


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("out", type=Path, metavar="OUT", help="a new or empty folder")
    parser.add_argument("--force", action="store_true",
                        help="replace the contents of a non-empty OUT (a .git folder in it is kept)")
    parser.add_argument("--repo", type=Path, default=REPO, help=argparse.SUPPRESS)


def run(args: argparse.Namespace) -> int:
    """``release OUT [--force]``: 0 on success, 2 on a refusal (message on stderr)."""
    try:
        written = release(args.out, repo=args.repo, force=args.force)
    except ReleaseError as exc:
        raise CommandError(str(exc)) from exc
    rebuilds.record('template', args.out)
    print(f"wrote {len(written)} files to {args.out}")
    print(f"next: cd {args.out} && git init -b main && git add -A && git commit -m 'Release' "
          f"(then push it as the template repository of the assignment)")
    return 0
