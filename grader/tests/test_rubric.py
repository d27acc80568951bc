"""The rubric and the checks agree, and a bad rubric gets a clear error."""

import ast

import pytest

from grader import registry
from grader.engine.results import EXERCISES
from grader.engine.rubric import DEFAULT_RUBRIC, POINTS_PER_EXERCISE, RubricError, load_rubric
from grader.paths import REPO


def check_functions(exercise):
    """Names of the check_* functions in check_<exercise>.py, in file order, without the prefix."""
    tree = ast.parse((REPO / registry.exercise(exercise).checks).read_text())
    return [node.name.removeprefix("check_") for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("check_")]


@pytest.mark.parametrize("exercise", EXERCISES)
def test_every_check_has_points_and_every_entry_a_check(exercise):
    rubric = load_rubric()
    assert list(rubric[exercise]) == check_functions(exercise), "rubric.toml lists the checks of check_<exercise>.py, in file order"


@pytest.mark.parametrize("exercise", EXERCISES)
def test_each_exercise_is_worth_the_same_points(exercise):
    assert sum(entry.points for entry in load_rubric()[exercise].values()) == POINTS_PER_EXERCISE


@pytest.mark.parametrize("exercise", EXERCISES)
def test_every_check_says_what_it_proves(exercise):
    tree = ast.parse((REPO / registry.exercise(exercise).checks).read_text())
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("check_"):
            doc = ast.get_docstring(node) or ""
            assert doc.startswith("Proves "), f"{node.name}: the docstring's first line must say what the check proves"


@pytest.mark.parametrize("text, error", [
    ("[collate\n", "not valid TOML"),
    ("[colate]\nx = 1\n", "unknown exercise"),
    ("[collate]\nx = -1\n", "points must be a number >= 0"),
    ("[collate]\nx = 'three'\n", "points must be a number >= 0"),
    ("[collate]\nx = {points = 1, visibility = 'secret'}\n", "visibility must be one of"),
    ("[collate]\nx = {pts = 1}\n", "expected {points = N"),
])
def test_bad_rubrics_are_rejected_with_a_reason(tmp_path, text, error):
    path = tmp_path / "rubric.toml"
    path.write_text(text)
    with pytest.raises(RubricError, match=error):
        load_rubric(path)


def test_missing_rubric_file(tmp_path):
    with pytest.raises(RubricError, match="does not exist"):
        load_rubric(tmp_path / "nope.toml")


def test_visibility_is_read(tmp_path):
    path = tmp_path / "rubric.toml"
    hidden = 'inputs_are_not_modified = {points = 1, visibility = "hidden"}'
    path.write_text(DEFAULT_RUBRIC.read_text().replace("inputs_are_not_modified = 1", hidden))
    assert load_rubric(path)["collate"]["inputs_are_not_modified"].visibility == "hidden"
