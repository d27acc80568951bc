"""The recipes of grader/docs/recipes.md run as written, on clean copies of this repository.

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
def test_change_a_promises_points(tmp_path, record_property):
    copy = copy_repository(tmp_path / "lab")
    timings = {}
    follow(recipe_steps("Change a promise's points"), copy, timings)
    record_property("recipe_seconds", json.dumps(timings))
    (collate,) = grade_reference(copy, tmp_path, "collate")["exercises"]
    points = {c["name"]: c["max_score"] for c in collate["checks"]}
    assert points["input_ids_are_right_padded"] == 4 and points["labels_are_ids_with_minus_100_at_padding"] == 2
    assert collate["score"] == collate["max_score"]


def changed_files(copy):
    """What the recipe changed in ``copy`` since its last commit, then that change committed (the next recipe's
    ``verify`` compares with it)."""
    git = ["git", "-c", "user.name=recipe", "-c", "user.email=recipe@localhost"]
    changed = subprocess.run(git + ["status", "--short"], cwd=copy, capture_output=True, text=True, check=True).stdout
    for args in (["add", "-A"], ["commit", "-q", "-m", "the recipe"]):
        subprocess.run(git + args, cwd=copy, check=True, capture_output=True, timeout=120)
    return sorted(line[3:] for line in changed.splitlines())


@pytest.mark.slow
@pytest.mark.timeout(2400)
def test_change_a_promise_then_add_a_check_for_a_new_promise(tmp_path, record_property):
    """Two recipes on one copy, one after the other (each ``verify`` compares with the commit before it).

    "Change a promise": the default and the sentence change in solutions/, their quotes, the handout and one wrong
    answer's claim only; verify is clean and the checks judge the new default (the reference pads with -1).
    "Add a check for a new promise": the sentence, its entry (with its points, one taken from another entry), its
    check, the public test and its wrong answer: three files of the exercise's folder by hand, the probe untouched;
    verify is clean and the reference earns the new check's point. Then the quick subset passes on the copy."""
    copy = copy_repository(tmp_path / "lab")
    timings = {}
    follow(recipe_steps("Change a promise"), copy, timings)
    assert changed_files(copy) == [
        "LAB.md", "exercises/collate.py", "grader/docs/contract.md",
        "grader/engine/defaults.toml", "grader/exercises/collate/corpus/wrong/pads_in_input_dtype.py",
        "grader/exercises/collate/promises.toml", "solutions/collate.py", "tests/defaults.toml", "tests/promises.toml"]
    assert "pad_id=-1" in (copy / "exercises" / "collate.py").read_text()
    follow(recipe_steps("Add a check for a new promise"), copy, timings)
    assert set(changed_files(copy)) == {
        "exercises/collate.py", "grader/docs/contract.md", "grader/docs/grading.md",
        "grader/exercises/collate/check_collate.py",
        "grader/exercises/collate/corpus/wrong/transposed_tables.py", "grader/exercises/collate/promises.toml",
        "solutions/collate.py", "tests/promises.toml",
        "tests/test_collate.py"}
    (collate,) = grade_reference(copy, tmp_path, "collate")["exercises"]
    points = {c["name"]: (c["score"], c["max_score"]) for c in collate["checks"]}
    assert points["tables_are_contiguous"] == (1, 1) and collate["score"] == collate["max_score"], points
    quick = subprocess.run([sys.executable, "-m", "pytest", "tests", "grader/tests", "--impl", "solutions", "-m",
                            "not slow and not workers", "-n", "2", "-q", "-p", "no:cacheprovider"], cwd=copy,
                           capture_output=True, text=True, timeout=900)
    record_property("recipe_seconds", json.dumps(timings))
    assert quick.returncode == 0, quick.stdout[-3000:]
