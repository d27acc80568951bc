"""lab.toml is the one list of exercises.

* No code or configuration file spells out a list of exercises: every
  reader goes through grader/registry.py (or, on the student side,
  tests/conftest.py reading lab.toml).
* Adding a sixth exercise is grader/docs/recipes.md's "Add an exercise",
  followed exactly as written on a copy of this repository: it ends with
  ``check`` clean, and the exercise is graded and released like the others.
"""

from __future__ import annotations

import ast
import json
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader import registry
from grader.engine.rubric import POINTS_PER_EXERCISE
from grader.paths import REPO
from grader.tests.recipe_walk import RECIPES, copy_repository, follow, recipe_steps, tracked_files
from grader.tools.authoring import answer_regions

NAMES = set(registry.EXERCISES) | set(registry.CONTRACT_FILES)


def literal_lists(path: Path) -> list[str]:
    """Lists, tuples, sets or dict keys in ``path`` that name two exercises or more."""
    found = []
    if path.suffix == ".py":
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            items = node.keys if isinstance(node, ast.Dict) else getattr(node, "elts", None) \
                if isinstance(node, (ast.List, ast.Tuple, ast.Set)) else None
            named = [i.value for i in items or [] if isinstance(i, ast.Constant) and i.value in NAMES]
            if len(named) >= 2:
                found.append(f"{path.relative_to(REPO)}:{node.lineno}: {named}")
    else:
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            named = [n for n in NAMES if re.search(rf'["\']{re.escape(n)}["\']', line)]
            if len(named) >= 2:
                found.append(f"{path.relative_to(REPO)}:{number}: {sorted(named)}")
    return found


@pytest.mark.slow
def test_no_list_of_exercises_outside_the_registry():
    """Code and configuration (.py, .toml, .yml, .cfg, .ini) read lab.toml instead of listing exercises."""
    skip = {REPO / "lab.toml", Path(__file__)}
    files = [p for p in tracked_files() if p.suffix in (".py", ".toml", ".yml", ".cfg", ".ini")
             and p not in skip and "corpus" not in p.parts]
    assert len(files) > 50
    offenders = [hit for path in files for hit in literal_lists(path)]
    assert not offenders, "exercises listed outside lab.toml:\n" + "\n".join(offenders)


def test_the_scan_finds_a_list(tmp_path):
    path = REPO / "grader" / "_scan_probe.py"
    try:
        path.write_text('NAMES = ("collate", "tokens")\n')
        assert literal_lists(path)
    finally:
        path.unlink()


def test_registry_rejects_a_bad_file(tmp_path):
    bad = tmp_path / "lab.toml"
    bad.write_text('[[exercise]]\nname = "x"\n')
    with pytest.raises(registry.RegistryError, match="missing fields"):
        registry.load(bad)
    with pytest.raises(registry.RegistryError, match="is missing"):
        registry.load(tmp_path / "none.toml")


def test_the_recipe_is_a_sequence_of_steps_this_test_can_follow():
    actions = [action for action, _, _ in recipe_steps()]
    assert actions[0] == "append" and actions[-1] == "run" and "create" in actions
    assert "grader verify toy" in recipe_steps()[-1][2].splitlines()[-1], "the recipe ends with verify"
    # check's one-line fixes cite steps by number (grader/tools/authoring/lab_check.py): they must still be those steps
    recipe = RECIPES.read_text(encoding="utf-8").split("## Add an exercise")[1].split("## Add a report writer")[0]
    items = dict(re.findall(r"^(\d+)\. (.*)$", recipe, flags=re.M))
    for number, words in (("2", "Write the reference"), ("5", "The probe"), ("6", "The hidden check"), ("7", "Its promise file"),
                          ("8", "The public test")):
        assert items[number].startswith(words), f"recipes.md's step {number} is no longer {words!r}: fix lab_check.py's steps"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_sixth_exercise_follows_the_recipe_to_a_clean_check(tmp_path):
    """grader/docs/recipes.md, "Add an exercise", followed exactly as written on a copy of this repository, ends with
    ``check`` clean; the new exercise is then graded, and released, like the others."""
    copy = copy_repository(tmp_path / "lab")
    follow(recipe_steps(), copy)

    def grader(*args):
        done = subprocess.run([sys.executable, "-m", "grader", *map(str, args)], cwd=copy, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, f"grader {args[0]}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
        return done

    stub = (copy / "exercises" / "toy.py").read_text()
    assert 'raise NotImplementedError("toy: double is not implemented yet' in stub.replace("'", '"')
    grader("grade", "solutions", "--seed", "1", "--quiet", "--json", tmp_path / "solutions.json")
    report = json.loads((tmp_path / "solutions.json").read_text())
    points = POINTS_PER_EXERCISE * len(registry.EXERCISES + ("toy",))
    assert [e["name"] for e in report["exercises"]][-1] == "toy" and report["score"] == report["max_score"] == points
    wrong = tmp_path / "wrong"
    shutil.copytree(copy / "solutions", wrong)
    triples = copy / "grader" / "exercises" / "toy" / "corpus" / "wrong" / "triples.py"
    (wrong / "toy.py").write_text(answer_regions.assemble((copy / "solutions" / "toy.py").read_text(), triples.read_text(),
                                                          str(triples)))
    grader("grade", wrong, "--only", "toy", "--seed", "1", "--quiet", "--json", tmp_path / "wrong.json")
    assert json.loads((tmp_path / "wrong.json").read_text())["score"] == 0
    grader("release", tmp_path / "template")
    assert (tmp_path / "template" / "exercises" / "toy.py").read_text() == stub
    assert "`doubles`" in (tmp_path / "template" / "README.md").read_text()


def test_check_finds_nothing_wrong_here_and_what_is_wrong_elsewhere(tmp_path):
    from grader.tools.authoring import lab_check

    # that this repository is clean: test_docs.py's test of the check command
    (tmp_path / "LAB.md").write_text("# A handout without the sections\n")
    missing_sections = lab_check.handout_problems(tmp_path)
    assert len(missing_sections) == sum(1 + bool(e.experiment) for e in registry.REGISTRY), missing_sections
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "collate.py").write_text("def something_else():\n    pass\n")
    problems = lab_check.registry_problems(tmp_path)
    assert any(p.startswith("collate: solutions/collate.py does not define the entry point pad_collate: ") for p in problems)
    assert any("grader/exercises/tokens/probe.py is missing" in p for p in problems), problems
    (tmp_path / "grader" / "exercises" / "tokens_old").mkdir(parents=True)
    assert any(p.startswith("grader/exercises/tokens_old/ is no exercise of lab.toml: ")
               for p in lab_check.registry_problems(tmp_path)), "a folder beside the exercises' is named"
