"""No surprise in the grade: the public tests catch the corpus's wrong answers before the grader does.

Each wrong answer (grader/tests/corpus/wrong/) is put in a package beside
the reference's other four files and run through the public tests of its
exercise (``pytest tests -m <exercise> --impl <package>``), as a student
would run them. The public tests must fail on it, unless its second line
says ``# HIDDEN: <why>``: a mistake the public tests leave to the grader on
purpose (the reason is shown by ``python -m grader scoreboard``). Such an
entry is an expected failure, and a strict one: once a public test catches
it, the HIDDEN line must go.

Slow: one pytest run per wrong answer (``-x`` stops at the first failure),
each a fork of a process that has imported torch once (preloaded_pytest.py).
That the same runner passes right answers, worker tests and lab experiments
included, is shown by test_public_tests.py's walk through the exercises.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from grader.paths import REPO
from grader.tests.preloaded_pytest import PreloadedPytest
from grader.tools import corpus

PACKAGE = "submitted"


@pytest.fixture(scope="module")
def preloaded_pytest():
    """A preloaded pytest server for this module's runs (see preloaded_pytest.py)."""
    with PreloadedPytest(REPO) as runner:
        yield runner


def _param(entry):
    marks = [pytest.mark.slow, pytest.mark.timeout(300)]
    if entry.hidden:
        marks.append(pytest.mark.xfail(strict=True, reason=f"hidden on purpose: {entry.hidden}"))
    return pytest.param(entry, id=entry.id, marks=marks)


def public_tests_pass(runner: PreloadedPytest, entry, tmp_path: Path) -> tuple[bool, str]:
    """Whether the public tests of the entry's exercise pass on it, and pytest's last lines."""
    corpus.assemble_package(entry, tmp_path / PACKAGE)
    args = ["tests", "-m", entry.exercise, "--impl", PACKAGE, "-x", "-q", "-p", "no:cacheprovider", "-p", "no:randomly"]
    code, output = runner.run(args, pythonpath=tmp_path, output=tmp_path / "pytest.log", timeout=280)
    if code not in (0, 1):
        pytest.fail(f"the public tests could not run on {entry.id} (exit {code}):\n{output[-2000:]}")
    return code == 0, "\n".join(output.strip().splitlines()[-3:])


@pytest.mark.parametrize("entry", [_param(e) for e in corpus.entries("wrong")])
def test_public_tests_catch_wrong_answer(entry, tmp_path, preloaded_pytest):
    passed, tail = public_tests_pass(preloaded_pytest, entry, tmp_path)
    assert not passed, f"the public tests of {entry.exercise} pass on {entry.id} ({entry.claim}); the grader would charge it:\n{tail}"
