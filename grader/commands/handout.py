"""``python -m grader handout``: the command line of :mod:`grader.tools.authoring.handout`."""

from __future__ import annotations

from pathlib import Path

from grader.commands import CommandError
from grader.tools.authoring.handout import HANDOUT, HandoutError, write_figures

HELP = "run the lab on solutions/ and write its figures into LAB.md's <!-- lab:x --> blocks"


def add_arguments(parser) -> None:
    parser.add_argument("handout", nargs="?", type=Path, default=HANDOUT, help="the handout to rewrite (default: LAB.md)")
    parser.add_argument("--only", default="abcd", help="which experiments to rewrite, e.g. 'abc' (default abcd)")


def run(args) -> int:
    if not args.only or set(args.only) - set("abcd"):
        raise CommandError(f"--only takes letters from 'abcd', got {args.only!r}")
    if not args.handout.is_file():
        raise CommandError(f"{args.handout}: no such file")
    try:
        written = write_figures(args.handout, args.only)
    except HandoutError as exc:
        raise CommandError(str(exc)) from exc
    print(f"wrote the figures of experiment(s) {', '.join(written)} into {args.handout}")
    return 0
