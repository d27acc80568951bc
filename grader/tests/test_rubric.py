"""The shipped points (each promise's entry) and the checks agree; a course's override replaces only the lines it names;
a bad rubric gets a clear error."""

import ast

import pytest

from grader import registry
from grader.engine.results import EXERCISES
from grader.engine.rubric import POINTS_PER_EXERCISE, RubricError, load_rubric, shipped_points
from grader.paths import REPO


def check_functions(exercise):
    """Names of the check_* functions in check_<exercise>.py, in file order, without the prefix."""
    tree = ast.parse((REPO / registry.exercise(exercise).checks).read_text())
    return [node.name.removeprefix("check_") for node in tree.body
            if isinstance(node, ast.FunctionDef) and node.name.startswith("check_")]


@pytest.mark.parametrize("exercise", EXERCISES)
def test_every_check_has_points_and_every_entry_a_check(exercise):
    rubric = load_rubric()
    assert sorted(rubric[exercise]) == sorted(check_functions(exercise)), \
        "every check_<name> of check_<exercise>.py is judge of one entry <exercise>.<name> of its promises.toml, with points"


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
    ("[collate]\ninputs_are_not_modified = -1\n", "points must be a number >= 0"),
    ("[collate]\ninputs_are_not_modified = 'three'\n", "points must be a number >= 0"),
    ("[collate]\ninputs_are_not_modified = {points = 1, visibility = 'secret'}\n", "visibility must be one of"),
    ("[collate]\ninputs_are_not_modified = {pts = 1}\n", "expected {points = N"),
    ("[collate]\ninputs_are_not_modifed = 1\n", "is no promise of collate; its promises are returns_exactly_the_three_keys"),
    ("collate = 3\n", "must be a table of `name = N` lines"),
])
def test_bad_rubrics_are_rejected_with_a_reason(tmp_path, text, error):
    path = tmp_path / "rubric.toml"
    path.write_text(text)
    with pytest.raises(RubricError, match=error):
        load_rubric(path)


def test_missing_rubric_file(tmp_path):
    with pytest.raises(RubricError, match="does not exist"):
        load_rubric(tmp_path / "nope.toml")


def test_a_course_override_replaces_only_the_lines_it_names(tmp_path):
    path = tmp_path / "rubric.toml"
    path.write_text('[collate]\ninputs_are_not_modified = {points = 3, visibility = "hidden"}\n')
    shipped, course = load_rubric(), load_rubric(path)
    assert course["collate"]["inputs_are_not_modified"].visibility == "hidden"
    assert course["collate"]["inputs_are_not_modified"].points == 3 != shipped["collate"]["inputs_are_not_modified"].points
    unchanged = {x: {n: e for n, e in checks.items() if (x, n) != ("collate", "inputs_are_not_modified")}
                 for x, checks in course.items()}
    assert unchanged == {x: {n: e for n, e in checks.items() if (x, n) != ("collate", "inputs_are_not_modified")}
                         for x, checks in shipped.items()}
    assert list(course["collate"]) == list(shipped["collate"]), "an override keeps the promises' order"


def test_a_promise_file_without_promises_or_points_is_refused(tmp_path):
    folder = tmp_path / registry.exercise("collate").folder
    folder.mkdir(parents=True)
    (folder / "promises.toml").write_text('[[explained]]\nid = "collate.x"\ndoc = "f"\nquote = "q"\nwhy = "w"\n')
    with pytest.raises(RubricError, match="no \\[\\[promise\\]\\] entry"):
        shipped_points("collate", tmp_path)
    (folder / "promises.toml").write_text('[[promise]]\nid = "collate.x"\ndoc = "f"\nquote = "q"\n')
    with pytest.raises(RubricError, match="collate.x: no points: give it `points = N`"):
        shipped_points("collate", tmp_path)
    (folder / "promises.toml").write_text('[[promise]]\nid = "tokens.x"\npoints = 1\n')
    with pytest.raises(RubricError, match="an id is collate.<name>"):
        shipped_points("collate", tmp_path)
