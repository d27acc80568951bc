"""``python -m grader verify``: the command line of :mod:`grader.tools.authoring.verify`."""

from __future__ import annotations

from grader.commands import CommandError
from grader.paths import REPO
from grader.tools.authoring.verify import known_exercises, verify

HELP = ("prove a change: check, then per exercise what the change replaced, the reference (full marks) and the stubs "
        "(zero) graded, the public tests and the corpus; one line per problem with its fix (exit 1 if any)")


def add_arguments(parser) -> None:
    parser.add_argument("exercises", nargs="*", metavar="EXERCISE", help="the exercises the change touched (default: all)")
    parser.add_argument("--since", default="HEAD", metavar="REV",
                        help="the git revision before the change, whose docstrings and defaults are looked for (default: HEAD)")


def run(args) -> int:
    known = known_exercises(REPO)
    unknown = [name for name in args.exercises if name not in known]
    if unknown:
        raise CommandError(f"no exercise {', '.join(map(repr, unknown))}: lab.toml has {', '.join(known)}")
    return verify(REPO, list(args.exercises) or list(known), args.since)
