"""Every public exercise test fails on the shipped stubs, with a one-line "not done yet";
the exercises can be walked in order, each standing alone.

(That they pass on the solutions is shown by the main suite, which runs
tests/ with --impl solutions.)
"""

import json
import shutil
import subprocess
import sys
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

from grader import registry
from grader.paths import REPO
from grader.tests.preloaded_pytest import PreloadedPytest


@pytest.fixture(scope="module")
def preloaded_pytest():
    """A preloaded pytest server for this module's runs (see preloaded_pytest.py)."""
    with PreloadedPytest(REPO) as runner:
        yield runner


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_every_public_exercise_test_fails_on_the_stubs(tmp_path, preloaded_pytest):
    report = tmp_path / "junit.xml"
    preloaded_pytest.run(["tests", "--impl", "exercises", "-p", "no:cacheprovider", "-q", f"--junitxml={report}"],
                         pythonpath=REPO, output=tmp_path / "pytest.log", timeout=580)
    cases = ET.parse(report).getroot().iter("testcase")
    outcomes = {}
    for case in cases:
        failure = case.find("failure")
        outcomes[f"{case.get('classname')}::{case.get('name')}"] = "" if failure is None else (failure.get("message") or failure.text or "")
    assert len(outcomes) > 40, f"only {len(outcomes)} public tests ran"
    passing = [name for name, message in outcomes.items() if not message]
    assert not passing, f"these public tests pass on the stubs: {passing}"
    wordy = [name for name, message in outcomes.items() if "not done yet" not in message]
    assert not wordy, f"these fail on the stubs without the one-line 'not done yet': {wordy}"


def _package(tmp_path: Path, solved: int) -> str:
    """A package with the reference for the first ``solved`` exercises and the stubs for the rest."""
    package = tmp_path / f"walk{solved}"
    package.mkdir()
    for name in ("__init__.py", "lab.py"):
        shutil.copyfile(REPO / "exercises" / name, package / name)
    for i, module in enumerate(registry.CONTRACT_FILES):
        shutil.copyfile(REPO / ("solutions" if i < solved else "exercises") / module, package / module)
    return package.name


def _pytest(runner, tmp_path: Path, marker: str, package: str) -> tuple[int, dict[str, str], str]:
    """(exit status, {test: failure message or ""}, output) of ``pytest -m marker --impl package``.

    Run in a fork of the preloaded pytest server (the public-catch test's runner: passing here shows it
    passes right code, workers and lab experiments included).
    """
    report = tmp_path / f"{package}.xml"
    args = ["tests", "-m", marker, "--impl", package, "-q", "-p", "no:cacheprovider", f"--junitxml={report}"]
    code, output = runner.run(args, pythonpath=tmp_path, output=tmp_path / f"{package}.log", timeout=280)
    outcomes = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        failure = case.find("failure")
        outcomes[case.get("name")] = "" if failure is None else (failure.get("message") or "")
    return code, outcomes, output[-2000:]


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("position", range(len(registry.EXERCISES)), ids=registry.EXERCISES)
def test_walking_the_exercises_in_order(tmp_path, position, preloaded_pytest):
    """With the exercises before X solved and X still a stub, ``pytest -m X`` fails only on X ("not done
    yet"); once X is solved too, it passes, whatever the exercises after X are."""
    marker = registry.EXERCISES[position]
    status, outcomes, output = _pytest(preloaded_pytest, tmp_path, marker, _package(tmp_path, position))
    assert status == 1 and outcomes, output
    wrong = {name: message for name, message in outcomes.items() if not message.startswith(f"not done yet: {marker}:")}
    assert not wrong, f"with {marker} a stub, these did not fail on {marker}'s stub alone: {wrong}"
    if position + 1 == len(registry.EXERCISES):
        return  # every exercise solved: the suite's own run of tests/ on solutions/ is that run
    status, outcomes, output = _pytest(preloaded_pytest, tmp_path, marker, _package(tmp_path, position + 1))
    assert status == 0, output


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_experiment_a_shows_the_duplicates_before_sharding_is_written(tmp_path):
    """On the stubs, experiment (a) still runs its unsharded half (no code of the student's) and says sharding is not done."""
    report = tmp_path / "lab.json"
    with open(tmp_path / "stderr.txt", "w") as stderr:
        subprocess.run([sys.executable, "-m", "exercises.lab", "--only", "a", "--json", str(report)], cwd=REPO,
                       stdout=subprocess.DEVNULL, stderr=stderr, timeout=240)
    entry = json.loads(report.read_text())["experiments"]["a"]
    assert entry["status"] == "not implemented" and "ShardedRange.__iter__ is not implemented yet" in entry["detail"]
    assert entry["result"]["unsharded_duplicates"] == entry["result"]["items"] > 0 and "sharded_yielded" not in entry["result"]


#: What starts DataLoader worker processes in the public tests: their loader helper and the lab's run.
WORKER_STARTERS = {"worker_loader", "run_experiment"}


def worker_starting_tests(path: Path) -> set[str]:
    """The test functions of ``path`` that start workers: they call a starter, or a function of the module that does."""
    import ast

    functions = {node.name: node for node in ast.parse(path.read_text(encoding="utf-8")).body if isinstance(node, ast.FunctionDef)}
    calls = {name: {n.func.id for n in ast.walk(node) if isinstance(n, ast.Call) and isinstance(n.func, ast.Name)}
             for name, node in functions.items()}
    starting, grown = set(WORKER_STARTERS), True
    while grown:
        more = {name for name, called in calls.items() if called & starting} - starting
        starting |= more
        grown = bool(more)
    return {f"{path.name}::{name}" for name in starting if name.startswith("test_")}


@pytest.mark.slow
def test_the_quick_loop_starts_no_worker():
    """``pytest -m "<exercise> and not workers"``, the students' quick loop (LAB.md, the student README), selects
    every public test but those that start DataLoader workers or the lab; each of those is one marker away."""
    done = subprocess.run([sys.executable, "-m", "pytest", "tests", "--collect-only", "-q", "-p", "no:cacheprovider",
                           "--impl", "solutions", "-m", "not workers"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    quick = {line.split("[")[0].removeprefix("tests/") for line in done.stdout.splitlines() if "::" in line}
    starting = set().union(*(worker_starting_tests(path) for path in sorted((REPO / "tests").glob("test_*.py"))))
    assert "test_lab.py::test_experiment_shows_what_the_handout_says" in starting and len(starting) > 8
    assert quick and not quick & starting, f"the quick loop starts workers in {sorted(quick & starting)}: mark them workers"
    for entry in registry.REGISTRY:
        assert any(name.startswith(f"test_{entry.name}.py::") for name in quick), f"{entry.name} has no quick loop"


def test_a_worker_test_that_timed_out_says_how_to_rerun_it_alone(tmp_path):
    """A worker test that fails by the DataLoader's timeout names the busy machine and the command that reruns it;
    a failure of another kind, or outside a worker test, gets no such note."""
    (tmp_path / "tests").mkdir()
    shutil.copy2(REPO / "tests" / "conftest.py", tmp_path / "tests" / "conftest.py")
    shutil.copy2(REPO / "lab.toml", tmp_path / "lab.toml")
    (tmp_path / "tests" / "test_slow.py").write_text(
        "import pytest\n\n\n"
        "@pytest.mark.workers\ndef test_worker_timed_out():\n    raise RuntimeError('DataLoader timed out after 60 seconds')\n\n\n"
        "@pytest.mark.workers\ndef test_worker_wrong():\n    assert 1 == 2\n\n\n"
        "def test_in_process_timed_out():\n    raise RuntimeError('DataLoader timed out after 60 seconds')\n")
    done = subprocess.run([sys.executable, "-m", "pytest", "tests", "-p", "no:cacheprovider", "-p", "no:randomly",
                           "-p", "no:xdist", "-q"], cwd=tmp_path, capture_output=True, text=True, timeout=120)
    assert done.returncode == 1, done.stdout[-2000:]
    assert done.stdout.count("rerun this test alone") == 1, done.stdout[-3000:]
    assert 'python -m pytest "tests/test_slow.py::test_worker_timed_out"' in done.stdout, done.stdout[-3000:]
