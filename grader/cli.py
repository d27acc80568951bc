"""The command line: ``python -m grader COMMAND``.

Every command is a module of :mod:`grader.commands` with the same shape:
``HELP`` (one line), an optional ``DESCRIPTION``, ``add_arguments(parser)``
and ``run(args) -> int``. Two explicit tables list them: the published
grader's commands (what the students' workflows and the hosts run; ``publish``
writes only their modules) and the instructor's, offered where the
instructor's tools are (this repository). An import error in a listed
command is an error, never a command quietly missing from ``--help``.

Exit status: 0 when the command did its job (whatever the score), 1 for a
negative answer (``generate --check`` with stale files, a ``verdict`` below
full marks, a ``scoreboard`` that did not hold), 2 for bad arguments, a
:class:`CommandError` (bad input the message explains) or a grader fault.
"""

from __future__ import annotations

import argparse
import importlib
import importlib.util
import sys

#: command -> module: what the published grader offers, in the order ``--help`` lists them.
PUBLISHED_COMMANDS = {
    "grade": "grader.commands.grade",
    "verdict": "grader.commands.verdict",
}
#: command -> module: the instructor's commands, offered where grader/tools/ is.
INSTRUCTOR_COMMANDS = {
    "generate": "grader.commands.generate",
    "release": "grader.commands.release",
    "publish": "grader.commands.publish",
    "classroom50": "grader.commands.classroom50",
    "gradescope": "grader.commands.gradescope",
    "simulate": "grader.commands.simulate",
    "record-submissions": "grader.commands.record_submissions",
    "batch": "grader.commands.batch",
    "merge": "grader.commands.merge",
    "dry-run": "grader.commands.dry_run",
    "review": "grader.commands.review",
    "regrade": "grader.commands.regrade",
    "grade-commit": "grader.commands.grade_commit",
    "bench": "grader.commands.bench",
    "scoreboard": "grader.commands.scoreboard",
    "contract": "grader.commands.contract",
    "docs": "grader.commands.docs",
    "check": "grader.commands.check",
}


class CommandError(Exception):
    """Bad input a command cannot go on with: ``main`` prints ``python -m grader NAME: error: MESSAGE`` and exits 2."""


def has_instructor_tools() -> bool:
    """Whether this grader holds the instructor's tools (this repository: yes; the published grader: no)."""
    return importlib.util.find_spec("grader.tools") is not None


def commands() -> dict[str, str]:
    """Every command offered here, published first."""
    return {**PUBLISHED_COMMANDS, **(INSTRUCTOR_COMMANDS if has_instructor_tools() else {})}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m grader", description="The data-loading lab's grader and instructor tools.")
    subparsers = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module_name in commands().items():
        module = importlib.import_module(module_name)
        sub = subparsers.add_parser(name, help=module.HELP, description=getattr(module, "DESCRIPTION", module.HELP))
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    try:
        parser = build_parser()
    except Exception as exc:  # lab.toml is read when the commands are imported: a broken one is one line, not a traceback
        if type(exc).__name__ != "RegistryError":
            raise
        print(f"python -m grader: error: {exc}", file=sys.stderr)
        return 2
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except CommandError as exc:
        print(f"python -m grader {args.command}: error: {exc}", file=sys.stderr)
        return 2
