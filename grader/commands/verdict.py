"""``python -m grader verdict REPORT.json``: the score line, and an exit status a CI job can use.

The grader's ``grade`` exits 0 whatever the score, so that its reports are
always written. A workflow that wants a red or green job runs ``verdict``
on the JSON report afterwards: exit 0 when every check that ran passed (a
check that cannot run on the machine, such as a GPU check on a CPU runner,
is neither a pass nor a failure), 1 otherwise, 2 when the report cannot be
read. ``--annotate`` also prints the score as a GitHub Actions notice
annotation (the text is the grader's own: numbers and check names).
"""

from __future__ import annotations

import json
from pathlib import Path

from grader.commands import CommandError
from grader.engine.results import GradeResult
from grader.writers.formatting import pts, ran


def summary(result: GradeResult) -> tuple[bool, str]:
    """(every check that ran passed, one line saying so)."""
    checks = ran(result.all_checks())
    failed = [f"{c.exercise}/{c.name}" for c in checks if not c.passed]
    line = f"Score {pts(result.score)} / {pts(result.max_score)}: "
    if not failed:
        return True, line + f"all {len(checks)} checks that ran passed"
    shown = ", ".join(failed[:5]) + (f" and {len(failed) - 5} more" if len(failed) > 5 else "")
    return False, line + f"{len(failed)} of {len(checks)} checks did not pass ({shown})"


HELP = "print the score of a JSON report; exit 1 unless every check that ran passed"


def add_arguments(parser) -> None:
    parser.add_argument("report", type=Path, help="a report written by grade --json")
    parser.add_argument("--annotate", action="store_true", help="also print a GitHub Actions ::notice annotation")


def run(args) -> int:
    try:
        result = GradeResult.from_dict(json.loads(args.report.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CommandError(f"cannot read the report {args.report}: {exc}")
    passed, line = summary(result)
    if args.annotate:
        print(f"::notice title=Autograder score::{line.replace('%', '%25')}")
    print(line)
    return 0 if passed else 1
