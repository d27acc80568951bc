"""``python -m grader check``: the command line of :mod:`grader.tools.lab_check`."""

from __future__ import annotations

from grader.tools.lab_check import all_problems

HELP = "check that lab.toml, the rubric, the stubs, the handout and the contract table agree (exit 1 if not)"


def add_arguments(parser) -> None:
    pass


def run(args) -> int:
    results = all_problems()
    for part, problems in results.items():
        print(f"{part}: {'ok' if not problems else f'{len(problems)} problem(s)'}")
        for problem in problems:
            print(f"  {problem}")
    return 1 if any(results.values()) else 0
