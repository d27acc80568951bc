"""``python -m grader gradescope OUT.zip``: the Gradescope autograder zip (see grader/tools/bundles.py)."""

from __future__ import annotations

from pathlib import Path

from grader.cli import CommandError
from grader.tools.bundles import gradescope_zip
from grader.tools.publish import PublishError

HELP = "write the Gradescope autograder zip (setup.sh, run_autograder, the grader)"


def add_arguments(parser) -> None:
    parser.add_argument("out", type=Path, help="the zip file to write, e.g. dataloading-lab-autograder.zip")


def run(args) -> int:
    try:
        names = gradescope_zip(args.out)
    except PublishError as exc:
        raise CommandError(str(exc)) from exc
    print(f"wrote {args.out} ({len(names)} files); upload it as the assignment's autograder "
          "(README.md, Gradescope, says which container settings it needs)")
    return 0
