"""``python -m grader scoreboard``: the command line of :mod:`grader.tools.authoring.corpus_scoreboard`."""

from __future__ import annotations

from pathlib import Path

from grader.commands import CommandError
from grader.tools.authoring.corpus_scoreboard import (
    holds,
    outcomes,
    read_junit,
    render,
    run_corpus_tests,
)

HELP = "grade the wrong, right and hostile corpora and print what held"


def add_arguments(parser) -> None:
    parser.add_argument("--from-junit", type=Path, metavar="FILE",
                     help="print the scoreboard of an earlier pytest run's JUnit report instead of running the tests")
    parser.add_argument("--jobs", type=int, default=2, help="pytest workers for the corpus tests (default 2)")


def run(args) -> int:
    if args.from_junit:
        if not args.from_junit.is_file():
            raise CommandError(f"{args.from_junit} does not exist")
        by_kind = outcomes(read_junit(args.from_junit))
        print(render(by_kind))
        return 0 if holds(by_kind) else 1
    return run_corpus_tests(["-n", str(args.jobs)] if args.jobs > 1 else [])
