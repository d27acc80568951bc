"""The command line: ``python -m grader COMMAND``.

Every command is a module of :mod:`grader.commands` with the same shape:
``HELP`` (one line), an optional ``DESCRIPTION``, ``add_arguments(parser)``
and ``run(args) -> int``. :mod:`grader.command_table` lists them (the
published grader's and the instructor's); this module is the only one that
finds and loads them, and nothing imports it but ``python -m grader``. An
import error in a listed command is an error, never a command quietly
missing from ``--help``.

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

from grader.command_table import INSTRUCTOR_COMMANDS, PUBLISHED_COMMANDS
from grader.commands import CommandError


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
        from grader.text import clean_text

        print(clean_text(f"python -m grader {args.command}: error: {exc}"), file=sys.stderr)
        return 2
