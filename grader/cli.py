"""The instructor's command line: ``python -m grader COMMAND``.

Commands:
    generate   write exercises/ from solutions/ (``--check`` only compares)
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def cmd_generate(args) -> int:
    from grader.stubs import StubError, stale_files, write_exercises

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
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(changed)} file(s) to {args.exercises}: {', '.join(changed) or 'nothing changed'}")
    return 0


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m grader", description="Instructor tools of the data-loading lab.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    generate = commands.add_parser("generate", help="write exercises/ (stubs) from solutions/")
    generate.add_argument("--solutions", type=Path, default=REPO / "solutions", help="reference solutions (default: solutions/)")
    generate.add_argument("--exercises", type=Path, default=REPO / "exercises", help="where the stubs go (default: exercises/)")
    generate.add_argument("--check", action="store_true", help="only report files that differ; exit 1 if any")
    generate.set_defaults(run=cmd_generate)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)
