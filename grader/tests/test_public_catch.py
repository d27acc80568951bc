"""No surprise in the grade, and no vacuous ok: the public tests catch the corpus's wrong answers, and each of them fails on one.

Each wrong answer (grader/exercises/<exercise>/corpus/wrong/) is put in a package beside
the reference's other four files and run through the public tests of its
exercise (``pytest tests -m <exercise> --impl <package>``), as a student
would run them. The public tests must fail on it, unless its ``# HIDDEN:
<why>`` line says the public tests leave it to the grader on purpose (the
reason is shown by ``python -m grader scoreboard``). Such an entry is an
expected failure, and a strict one: once a public test catches it, the
HIDDEN line must go.

The other way round, every public test and every ``[ok]`` line the lab
prints has a witness (:data:`WITNESSES`): a wrong answer it fails on, whose
third header line (``# witness of: ...``) names it. A
witness's run is its public-catch run: instead of stopping at the first
failure, it runs the tests it witnesses, and each must fail; for a lab
claim, its experiment must print ``[NO]`` for it (the lab's public test
records the claims it did not show in the JUnit report).

Slow: one pytest run per wrong answer (``-x`` stops at the first failure;
the tests that start no DataLoader worker run first, and those that do only
if the others all pass), each a fork of a process that has imported torch once
(preloaded_pytest.py).
That the same runner passes right answers, worker tests and lab experiments
included, is shown by test_public_tests.py's walk through the exercises.
"""

from __future__ import annotations

import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from grader.paths import REPO
from grader.tests.preloaded_pytest import PreloadedPytest
from grader.tools.authoring import corpus
from grader.tools.authoring.contract_table import functions
from solutions.lab import EXPECTATIONS

PACKAGE = "submitted"
LAB_TEST = "tests/test_lab.py::test_experiment_shows_what_the_handout_says"
#: {wrong answer: the public tests (file::function) and lab claims ("lab <letter>: <claim>") it must fail}, from the
#: third header line of each witness (``# witness of: ...``, corpus.WITNESS).
WITNESSES = {entry.id: list(entry.witnesses) for entry in corpus.entries("wrong") if entry.witnesses}


def public_test_functions() -> list[str]:
    """Every public test but the lab's (file::function, file relative to tests/): what WITNESSES must cover."""
    return [f"{path.name}::{name}" for path in sorted((REPO / "tests").glob("test_*.py")) if path.name != "test_lab.py"
            for name in functions(path, "test_")]


def lab_claims() -> list[str]:
    """Every [ok] line of the lab, as "lab <letter>: <claim>"."""
    return [f"lab {letter}: {claim}" for letter, claims in EXPECTATIONS.items() for claim, _ in claims]


def test_every_public_test_and_lab_claim_has_a_witness():
    witnessed = {item for items in WITNESSES.values() for item in items}
    missing = [t for t in public_test_functions() + lab_claims() if t not in witnessed]
    assert not missing, f"these pass on every wrong answer named in WITNESSES: give each a wrong answer it fails on: {missing}"
    unknown = sorted(witnessed - set(public_test_functions()) - set(lab_claims()))
    assert not unknown, f"WITNESSES names public tests or lab claims that do not exist: {unknown}"


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


def run_public_tests(runner: PreloadedPytest, entry, tmp_path: Path, args: list[str]) -> tuple[int, Path, str]:
    """(exit status, JUnit report, pytest's last lines) of ``pytest ARGS --impl <package>`` on the entry."""
    corpus.assemble_package(entry, tmp_path / PACKAGE)
    report = tmp_path / "junit.xml"
    args = [*args, "--impl", PACKAGE, "-q", "-p", "no:cacheprovider", "-p", "no:randomly", f"--junitxml={report}"]
    code, output = runner.run(args, pythonpath=tmp_path, output=tmp_path / "pytest.log", timeout=280)
    if code not in (0, 1):
        pytest.fail(f"the public tests could not run on {entry.id} (exit {code}):\n{output[-2000:]}")
    return code, report, "\n".join(output.strip().splitlines()[-3:])


def witnessed_outcomes(report: Path) -> tuple[set[str], set[str]]:
    """(the public tests that failed, as file::function; the lab claims not shown, as "lab <letter>: <claim>")."""
    failed, not_shown = set(), set()
    for case in ET.parse(report).getroot().iter("testcase"):
        name = case.get("name", "")
        test = f"{case.get('classname', '').rpartition('.')[2]}.py::{name.partition('[')[0]}"
        if case.find("failure") is not None or case.find("error") is not None:
            failed.add(test)
        for prop in case.iter("property"):
            if prop.get("name") == "claims_not_shown" and prop.get("value"):
                letter = name.partition("[")[2][:1]
                not_shown |= {f"lab {letter}: {claim}" for claim in prop.get("value").split("; ")}
    return failed, not_shown


def witness_args(entry, items: list[str]) -> list[str]:
    """The pytest arguments that run ``items`` on the entry: its public tests, and its exercise's experiment once
    (the lab's test, selected by the exercise's marker)."""
    tests = [f"tests/{item}" for item in items if not item.startswith("lab ")]
    lab = [LAB_TEST] if any(item.startswith("lab ") for item in items) else []
    return [*tests, *lab, "-m", entry.exercise]


@pytest.mark.parametrize("entry", [_param(e) for e in corpus.entries("wrong")])
def test_public_tests_catch_wrong_answer(entry, tmp_path, preloaded_pytest):
    items = WITNESSES.get(entry.id)
    if not items:
        # The tests that start no worker first (seconds), then, only where they all pass, those that do.
        for number, marker in enumerate((f"{entry.exercise} and not workers", f"{entry.exercise} and workers")):
            code, _, tail = run_public_tests(preloaded_pytest, entry, tmp_path / f"run-{number}", ["tests", "-m", marker, "-x"])
            if code == 1:
                break
        assert code == 1, f"the public tests of {entry.exercise} pass on {entry.id} ({entry.claim}); the grader would charge it:\n{tail}"
        return
    code, report, tail = run_public_tests(preloaded_pytest, entry, tmp_path, witness_args(entry, items))
    failed, not_shown = witnessed_outcomes(report)
    missed = [item for item in items if item not in (not_shown if item.startswith("lab ") else failed)]
    assert not missed, (f"{entry.id} ({entry.claim}) is the witness of {missed}, but they pass on it (a lab claim: its "
                        f"experiment printed [ok]); each public test and lab claim must fail on some wrong answer:\n{tail}")
