"""``python -m grader contract``: the command line of :mod:`grader.tools.authoring.contract_doc`."""

from __future__ import annotations

import sys

from grader.commands import CommandError
from grader.tools.authoring import contract_table as contract
from grader.tools.authoring import public_promises
from grader.tools.authoring.contract_doc import PAGE, render, with_block

HELP = ("render the contract table (grader/exercises/*/promises.toml) into grader/docs/contract.md and tests/promises.toml "
        "(--check only compares)")


def add_arguments(parser) -> None:
    parser.add_argument("--check", action="store_true",
                        help="only report whether grader/docs/contract.md's table or tests/promises.toml is stale; exit 1 if one is")


def run(args) -> int:
    try:
        entries = contract.load()
        text = PAGE.read_text(encoding="utf-8")
        new = with_block(text, render(entries))
    except (contract.ContractError, ValueError) as exc:
        raise CommandError(str(exc)) from exc
    if args.check:
        if new != text:
            print("grader/docs/contract.md's contract table is stale: run python -m grader contract", file=sys.stderr)
        promises_stale = public_promises.stale()
        if promises_stale:
            print(f"{public_promises.TARGET} is stale: run python -m grader contract", file=sys.stderr)
        return int(new != text or promises_stale)
    PAGE.write_text(new, encoding="utf-8")
    public_promises.write(entries)
    problems = contract.problems(entries)
    print(f"wrote the contract table into {PAGE} ({len(entries)} entries) and {public_promises.TARGET}"
          + (f"; {len(problems)} problem(s), see grader/tests/test_contract.py" if problems else ""))
    return 0
