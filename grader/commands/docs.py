"""``python -m grader docs``: the command line of :mod:`grader.tools.authoring.doc_figures`."""

from __future__ import annotations

import sys

from grader.tools.authoring import doc_figures

HELP = "write every derived figure into README.md and grader/docs/ (--check only compares; exit 1 if one is stale)"


def add_arguments(parser) -> None:
    parser.add_argument("--check", action="store_true", help="only list the stale figures; exit 1 if there is one")


def run(args) -> int:
    if args.check:
        problems = doc_figures.problems()
        for problem in problems:
            print(problem, file=sys.stderr)
        return int(bool(problems))
    changed = doc_figures.write()
    print(f"rewrote the figures of {', '.join(changed)}" if changed else "every figure is up to date")
    unknown = [p for p in doc_figures.problems() if "is unknown" in p or "is missing" in p]
    for problem in unknown:
        print(problem, file=sys.stderr)
    return int(bool(unknown))
