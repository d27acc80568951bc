"""The command line: ``python -m grader COMMAND``.

Every command is a module with the same shape: ``HELP`` (one line), an
optional ``DESCRIPTION``, ``add_arguments(parser)`` and ``run(args) -> int``.
:data:`COMMANDS` is the one table of them. The published grader (what the
students' workflows and the hosts run) holds the engine only, so the
tools' commands are simply not offered there.

Exit status: 0 when the command did its job (whatever the score), 1 for a
negative answer (``generate --check`` with stale files, a ``verdict`` below
full marks, a ``scoreboard`` that did not hold), 2 for bad arguments or a
grader fault.
"""

from __future__ import annotations

import argparse
import importlib

#: command -> module, in the order ``--help`` lists them.
COMMANDS = {
    "grade": "grader.engine.grade",
    "verdict": "grader.engine.verdict",
    "generate": "grader.tools.stubs",
    "release": "grader.tools.release",
    "publish": "grader.tools.publish",
    "classroom50": "grader.tools.classroom50",
    "gradescope": "grader.tools.gradescope",
    "record-submissions": "grader.tools.record_submissions",
    "batch": "grader.tools.batch",
    "merge": "grader.tools.merge",
    "review": "grader.tools.review",
    "regrade": "grader.tools.regrade",
    "grade-commit": "grader.tools.grade_commit",
    "bench": "grader.tools.bench",
    "scoreboard": "grader.tools.scoreboard",
    "contract": "grader.tools.contract_readme",
}


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m grader", description="The data-loading lab's grader and instructor tools.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for name, module_name in COMMANDS.items():
        try:
            module = importlib.import_module(module_name)
        except ModuleNotFoundError as exc:
            if (exc.name or "").startswith("grader.tools"):
                continue  # a published grader: the engine's commands only
            raise
        sub = commands.add_parser(name, help=module.HELP, description=getattr(module, "DESCRIPTION", module.HELP))
        module.add_arguments(sub)
        sub.set_defaults(run=module.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)
