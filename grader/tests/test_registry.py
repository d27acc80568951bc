"""lab.toml is the one list of exercises.

* No code or configuration file spells out a list of exercises: every
  reader goes through grader/registry.py (or, on the student side,
  tests/conftest.py reading lab.toml).
* Adding a sixth exercise takes one registry entry, a solution, a probe, a
  check, a rubric section, a handout section and corpus answers, and nothing
  else: shown on a copy of this repository, through ``generate``, ``grade``
  and ``release``.
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
from grader.paths import REPO

NAMES = set(registry.EXERCISES) | set(registry.CONTRACT_FILES)


def tracked_files() -> list[Path]:
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout.split()
    return [REPO / name for name in listed if (REPO / name).is_file()]


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


TOY_SOLUTION = '''"""Exercise 6 (toy): doubling, to show that one registry entry adds an exercise.

Handout: LAB.md, "Toy doubling".
"""


def double(x):
    """Return 2 * x for an int x."""
    ### BEGIN SOLUTION
    return 2 * x
    ### END SOLUTION
'''
TOY_PROBE = '''"""Probes for the toy exercise."""

from grader.inside.probes.common import load_submission


def doubles(values):
    module = load_submission("toy")
    return [module.double(v) for v in values]


def preflight(module):
    return {"double": lambda: module.double(1)}
'''
TOY_CHECK = '''"""Checks of the toy exercise."""

from grader.engine.checks.support import expect


def check_doubles(ctx):
    """Proves double(x) == 2 * x, negative numbers included."""
    got = ctx.probe("toy:doubles", values=[0, 1, -3, 10**6])
    expect(got == [0, 2, -6, 2 * 10**6], f"double gave {got}")
'''
TOY_ENTRY = '''
[[exercise]]
name = "toy"
entry_points = ["double"]
handout = "Toy doubling"
experiment = ""
hint = "the docstring of double"
'''


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_a_sixth_exercise_needs_only_its_own_files(tmp_path):
    copy = tmp_path / "lab"
    for path in tracked_files():
        target = copy / path.relative_to(REPO)
        target.parent.mkdir(parents=True, exist_ok=True)
        shutil.copy2(path, target)
    (copy / "lab.toml").write_text((copy / "lab.toml").read_text() + TOY_ENTRY)
    (copy / "solutions" / "toy.py").write_text(TOY_SOLUTION)
    (copy / "grader" / "inside" / "probes" / "toy.py").write_text(TOY_PROBE)
    (copy / "grader" / "engine" / "checks" / "check_toy.py").write_text(TOY_CHECK)
    (copy / "grader" / "engine" / "rubric.toml").write_text((copy / "grader" / "engine" / "rubric.toml").read_text() + "\n[toy]\ndoubles = 5\n")
    (copy / "LAB.md").write_text((copy / "LAB.md").read_text() + "\n## Toy doubling\n\nDouble an int.\n")
    for kind, body in (("wrong", "# WRONG: triples instead of doubling.\ndef double(x):\n    return 3 * x\n"),
                       ("right", "# RIGHT: shifts left by one bit instead of multiplying.\ndef double(x):\n    return x << 1\n")):
        (copy / "grader" / "tests" / "corpus" / kind / "toy").mkdir(parents=True)
        (copy / "grader" / "tests" / "corpus" / kind / "toy" / f"{kind}_toy.py").write_text(body)

    def grader(*args):
        done = subprocess.run([sys.executable, "-m", "grader", *map(str, args)], cwd=copy, capture_output=True,
                              text=True, timeout=300)
        assert done.returncode == 0, f"grader {args[0]}: {done.stdout[-2000:]}{done.stderr[-2000:]}"
        return done

    grader("generate")
    stub = (copy / "exercises" / "toy.py").read_text()
    assert 'raise NotImplementedError("toy: double is not implemented yet' in stub.replace("'", '"')
    grader("grade", "solutions", "--seed", "1", "--quiet", "--json", tmp_path / "solutions.json")
    report = json.loads((tmp_path / "solutions.json").read_text())
    assert [e["name"] for e in report["exercises"]][-1] == "toy" and report["score"] == report["max_score"] == 105
    wrong = tmp_path / "wrong"
    shutil.copytree(copy / "solutions", wrong)
    shutil.copyfile(copy / "grader" / "tests" / "corpus" / "wrong" / "toy" / "wrong_toy.py", wrong / "toy.py")
    grader("grade", wrong, "--only", "toy", "--seed", "1", "--quiet", "--json", tmp_path / "wrong.json")
    assert json.loads((tmp_path / "wrong.json").read_text())["score"] == 0
    grader("release", tmp_path / "template")
    assert (tmp_path / "template" / "exercises" / "toy.py").read_text() == stub
    assert "`doubles`" in (tmp_path / "template" / "README.md").read_text()


def test_check_finds_nothing_wrong_here_and_what_is_wrong_elsewhere(tmp_path):
    from grader.tools import lab_check

    assert lab_check.all_problems() == {part: [] for part in lab_check.PARTS}
    (tmp_path / "LAB.md").write_text("# A handout without the sections\n")
    missing_sections = lab_check.handout_problems(tmp_path)
    assert len(missing_sections) == sum(1 + bool(e.experiment) for e in registry.REGISTRY), missing_sections
    (tmp_path / "solutions").mkdir()
    (tmp_path / "solutions" / "collate.py").write_text("def something_else():\n    pass\n")
    problems = lab_check.registry_problems(tmp_path)
    assert "collate: solutions/collate.py does not define the entry point pad_collate" in problems
    assert any("grader/inside/probes/tokens.py is missing" in p for p in problems), problems
