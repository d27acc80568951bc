"""``python -m grader gradescope OUT.zip``: the Gradescope autograder zip (see grader/tools/delivery/host_bundles.py)."""

from __future__ import annotations

import sys
from pathlib import Path

from grader.commands import CommandError
from grader.engine import seeds
from grader.tools.authoring import rebuilds
from grader.tools.delivery.host_bundles import gradescope_zip
from grader.tools.delivery.published_grader import PublishError

HELP = "write the Gradescope autograder zip (setup.sh, run_autograder, the grader; the course key of $GRADER_SEED_KEY)"


def add_arguments(parser) -> None:
    parser.add_argument("out", type=Path, help="the zip file to write, e.g. dataloading-lab-autograder.zip")


def run(args) -> int:
    previous = rebuilds.last_built().get(rebuilds.KEYED, {})
    carried_before = bool(previous.get("course_key") or previous.get("course_key_before"))
    try:
        key = seeds.key_from_environment()
        names = gradescope_zip(args.out, seed_key=key)
    except PublishError as exc:
        raise CommandError(str(exc)) from exc
    rebuilds.record(rebuilds.KEYED, args.out, course_key=key is not None)
    print(f"wrote {args.out} ({len(names)} files); upload it as the assignment's autograder "
          "(grader/docs/hosts.md, Gradescope, says which container settings it needs)")
    if key:
        print(f"it carries the course key from ${seeds.KEY_VARIABLE}: each submission is graded with its student's "
              "secret seed of record; keep the zip private")
    else:
        print(f"no course key in ${seeds.KEY_VARIABLE}: each submission gets a fresh seed, shown to the student",
              file=sys.stderr)
        if carried_before:
            print(f"warning: the zip this clone built before carried the course key, and this one does not: if this "
                  f"zip is the grade of record, rebuild it with {rebuilds.KEYED_COMMAND}", file=sys.stderr)
    return 0
