"""The recipes of grader/docs/recipes.md run as written, each on a clean copy of this repository.

Each worked example is followed block by block (grader/tests/recipe_walk.py)
and ends with ``python -m grader verify <exercise>`` clean: the reference at
full marks, the stubs at zero, the exercise's public tests and corpus as
their headers say. "Add an exercise" is walked by
grader/tests/test_registry.py. Each run block's time is recorded in the JUnit
report (``recipe_seconds``).
"""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from grader.tests.recipe_walk import copy_repository, follow, recipe_steps


def grade_reference(copy, tmp_path, exercise):
    done = subprocess.run([sys.executable, "-m", "grader", "grade", "solutions", "--only", exercise, "--seed", "3",
                           "--quiet", "--json", str(tmp_path / "report.json")], cwd=copy, capture_output=True,
                          text=True, timeout=600)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    return json.loads((tmp_path / "report.json").read_text())


@pytest.mark.slow
@pytest.mark.timeout(1200)
def test_change_a_checks_points(tmp_path, record_property):
    copy = copy_repository(tmp_path / "lab")
    timings = {}
    follow(recipe_steps("Change a check's points"), copy, timings)
    record_property("recipe_seconds", json.dumps(timings))
    (collate,) = grade_reference(copy, tmp_path, "collate")["exercises"]
    points = {c["name"]: c["max_score"] for c in collate["checks"]}
    assert points["input_ids_are_right_padded"] == 4 and points["labels_are_ids_with_minus_100_at_padding"] == 2
    assert collate["score"] == collate["max_score"]


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_change_a_promise_the_pad_id_default_and_a_sentence(tmp_path, record_property):
    """The default and the sentence change in solutions/, their quotes, the handout and one wrong answer's claim only;
    verify is clean, the checks judge the new default (the reference pads with -1), and the quick subset passes on
    the copy."""
    copy = copy_repository(tmp_path / "lab")
    timings = {}
    follow(recipe_steps("Change a promise"), copy, timings)
    changed = subprocess.run(["git", "status", "--short"], cwd=copy, capture_output=True, text=True, check=True).stdout
    assert sorted(line[3:] for line in changed.splitlines()) == [
        "LAB.md", "exercises/collate.py", "grader/docs/contract.md", "grader/engine/contract.toml",
        "grader/engine/defaults.toml", "grader/exercises/collate/corpus/wrong/pads_in_input_dtype.py",
        "solutions/collate.py", "tests/defaults.toml"], changed
    assert "pad_id=-1" in (copy / "exercises" / "collate.py").read_text()
    quick = subprocess.run([sys.executable, "-m", "pytest", "tests", "grader/tests", "--impl", "solutions", "-m",
                            "not slow and not workers", "-n", "2", "-q", "-p", "no:cacheprovider"], cwd=copy,
                           capture_output=True, text=True, timeout=900)
    record_property("recipe_seconds", json.dumps(timings))
    assert quick.returncode == 0, quick.stdout[-3000:]
