"""The promises of the docstrings and the public tests that show each: what the student's local score reads.

``python -m grader contract`` writes :data:`TARGET` (``tests/promises.toml``)
from the exercises' promises.toml files beside contract.md: per promise its id, the
name whose docstring holds it, its quote (the sentences it proves, joined) and its public tests as
``test_<file>.py::test_name``; ``contract --check`` and ``check`` say when it
is stale. The template ships it with the tests, and ``python -m
exercises.score`` reads it. Nothing hidden goes in: a quote is the
docstring's own words and the tests are public; the checks, their points and
their boundaries stay here.
"""

from __future__ import annotations

from pathlib import Path

from grader.paths import REPO
from grader.tools.authoring import contract_table as contract

#: Where the table is written, relative to the repository.
TARGET = Path("tests") / "promises.toml"
HEADER = ("# The docstrings' promises and the public tests that show each, read by python -m exercises.score.\n"
          "# Generated from the instructor's contract table: do not edit.\n")


def _string(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def test_ids(entry: contract.Entry) -> list[str]:
    """The entry's public tests as ``test_<file>.py::test_name`` (a bare name is one of its exercise's file)."""
    return [name if "::" in name else f"test_{entry.exercise}.py::{name}" for name in entry.tests]


def render(entries: list[contract.Entry]) -> str:
    """The text of :data:`TARGET`: one ``[[promise]]`` per promise, in the contract table's order."""
    lines = [HEADER]
    for entry in entries:
        if entry.kind != "promise":
            continue
        tests = ", ".join(_string(name) for name in test_ids(entry))
        lines += ["\n[[promise]]\n", f"id = {_string(entry.id)}\n", f"doc = {_string(entry.doc)}\n",
                  f"quote = {_string(contract.normalize(' '.join(entry.quotes)))}\n", f"tests = [{tests}]\n"]
    return "".join(lines)


def stale(repo: Path = REPO) -> bool:
    """Whether :data:`TARGET` differs from what :func:`render` makes of the contract table now (missing is stale)."""
    path = repo / TARGET
    entries = contract.load(repo)
    return not path.is_file() or path.read_text(encoding="utf-8") != render(entries)


def write(entries: list[contract.Entry], repo: Path = REPO) -> Path:
    """Write :data:`TARGET` for ``entries``; its path."""
    path = repo / TARGET
    path.write_text(render(entries), encoding="utf-8")
    return path
