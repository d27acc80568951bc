"""``python -m grader explain CHECK``: the command line of :mod:`grader.tools.authoring.check_story`."""

from __future__ import annotations

from grader.commands import CommandError
from grader.tools.authoring.check_story import UnknownCheck, all_checks, render, story

HELP = "a check's whole story: its promise, points, probe, start methods, public twin, corpus answers, where to look"


def add_arguments(parser) -> None:
    parser.add_argument("check", nargs="?", help="the check: EXERCISE.NAME, NAME or check_NAME (e.g. tokens.pickle_stays_small)")
    parser.add_argument("--list", action="store_true", help="list every check's name instead")


def run(args) -> int:
    if args.list:
        print("\n".join(f"{exercise}.{name}" for exercise, name in all_checks()))
        return 0
    if not args.check:
        raise CommandError("name a check (python -m grader explain --list lists them)")
    try:
        print(render(story(args.check)), end="")
    except UnknownCheck as exc:
        raise CommandError(str(exc)) from exc
    return 0
