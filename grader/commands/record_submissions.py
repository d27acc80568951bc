"""``python -m grader record-submissions``: the command line of :mod:`grader.tools.intake.deadline_record`."""

from __future__ import annotations

import sys
from pathlib import Path

from grader.commands import CommandError
from grader.tools.intake.deadline_record import (
    REPOSITORY,
    record_all,
    write_record,
)
from grader.tools.intake.github_api import parse_time

HELP = "ask GitHub which commit each repository held at the deadline"


def _repository(text: str) -> str:
    if not REPOSITORY.fullmatch(text):
        import argparse

        raise argparse.ArgumentTypeError(f"{text!r} is not owner/name")
    return text


def add_arguments(parser) -> None:
    parser.add_argument("repositories", nargs="+", type=_repository, help="owner/name of each student repository")
    parser.add_argument("--deadline", required=True, help="ISO 8601 with a time zone, e.g. 2026-12-01T23:59:00+01:00")
    parser.add_argument("--out", type=Path, required=True, help="the record file (JSON) for batch --server-record")


def run(args) -> int:
    try:
        deadline = parse_time(args.deadline)
    except ValueError as exc:
        raise CommandError(f"--deadline: {exc}")
    found = record_all(args.repositories, deadline, log=lambda line: print(line, file=sys.stderr))
    write_record(found, args.deadline, args.out)
    return 0
