"""``python -m grader check``: the command line of :mod:`grader.tools.authoring.lab_check` and :mod:`grader.tools.authoring.rebuilds`."""

from __future__ import annotations

from grader.sandbox.jail import CVE, bubblewrap
from grader.tools.authoring.lab_check import all_problems
from grader.tools.authoring.rebuilds import RECORD_NAME, report

HELP = ("check every rule the suite enforces about the registry, rubric, stubs, handout, contract, public tests, "
        "corpora and docs (exit 1 if one fails), then list what must be rebuilt")


def add_arguments(parser) -> None:
    pass


def run(args) -> int:
    results = all_problems()
    for part, problems in results.items():
        print(f"{part}: {'ok' if not problems else f'{len(problems)} problem(s)'}")
        for problem in problems:
            print(f"  {problem}")
    found = bubblewrap()
    print(f"\nbubblewrap (the jail) on this machine: {found.text()}")
    if found.version and found.fixed is not True:
        print(f"  warning: {CVE} may let a planted symlink write on this machine while a jail is set up; the grader "
              "builds every jail from folders made fresh for it, but install a fixed bubblewrap where you can "
              "(grader/docs/hosts.md, \"bubblewrap\")")
    print(f"\nwhat students get, against what this clone last built ({RECORD_NAME}):")
    for line in report():
        print(f"  {line}")
    return 1 if any(results.values()) else 0
