"""``python -m grader release OUT``: the student template repository.

Proves: nothing of a solution region, of ``grader/`` or of ``solutions/``
reaches the release; the released public tests run on their own, fail on the
stubs and pass once the solutions' files are copied in; a non-empty OUT is
refused without ``--force``.

Does not prove that every released public test passes on the solutions (only
the collate and tokens ones run here, to stay fast): the released tests are
byte-identical to ``tests/`` (checked below), and the main suite runs those
with ``--impl solutions``.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from grader.paths import REPO
from grader.registry import CONTRACT_FILES
from grader.tools.authoring.stubs import BEGIN, END
from grader.tools.delivery.student_template import ReleaseError, release, student_pyproject

# Solution lines too generic to betray anything: punctuation only, or one bare keyword statement.
_TRIVIAL = re.compile(r'^([\W_]*|"""|(return|pass|break|continue|else:|try:|finally:|yield|raise)\s*)$')
_FORBIDDEN_IMPORT = re.compile(r"^\s*(from|import)\s+(grader|solutions)\b|import_module\(\s*[\"'](grader|solutions)\b",
                               re.MULTILINE)


def solution_lines() -> dict[str, str]:
    """Each non-trivial stripped line inside a solution region of solutions/*.py -> where it is.

    Lines that also appear outside every region are left out: those are shipped anyway.
    """
    inside: dict[str, str] = {}
    outside: set[str] = set()
    for path in sorted((REPO / "solutions").glob("*.py")):
        in_region = False
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            text = line.strip()
            if BEGIN in text:
                in_region = True
            elif END in text:
                in_region = False
            elif in_region:
                inside.setdefault(text, f"solutions/{path.name}:{number}")
            else:
                outside.add(text)
    return {text: where for text, where in inside.items() if text not in outside and not _TRIVIAL.match(text)}


def released_files(root: Path) -> list[Path]:
    return sorted(p for p in root.rglob("*") if p.is_file() and ".git" not in p.relative_to(root).parts)


@pytest.fixture(scope="module")
def released(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("release") / "student"
    written = release(out)
    assert written == released_files(out)
    return out


def test_release_contains_the_student_repository(released):
    names = {str(p.relative_to(released)) for p in released_files(released)}
    expected = {"README.md", "LAB.md", "lab.toml", "requirements.txt", "pyproject.toml", ".gitignore", ".github/workflows/grade.yml",
                "tests/conftest.py", "tests/lab_helpers.py", "exercises/__init__.py", "exercises/lab.py"}
    expected |= {f"exercises/{name}" for name in CONTRACT_FILES}
    assert expected <= names
    assert all(n.split("/")[0] in {"exercises", "tests", ".github"} or "/" not in n for n in names), names
    for folder in ("exercises", "tests"):
        for source in (REPO / folder).glob("*.py"):
            assert (released / folder / source.name).read_bytes() == source.read_bytes(), f"{folder}/{source.name}"
    assert (released / "requirements.txt").read_bytes() == (REPO / "requirements.txt").read_bytes()
    assert not any("__pycache__" in n or n.endswith(".pyc") for n in names)
    assert (released / "LAB.md").read_bytes() == (REPO / "LAB.md").read_bytes()


def test_the_released_lab_reads_the_bounds_the_grader_reads(released):
    """The released lab.toml carries [bounds], and the released lab runner reads the grader's padding bound from it."""
    import importlib.util

    from grader import registry

    assert tomllib.loads((released / "lab.toml").read_text())["bounds"] == tomllib.loads((REPO / "lab.toml").read_text())["bounds"]
    spec = importlib.util.spec_from_file_location("released_lab", released / "exercises" / "lab.py")
    lab = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(lab)
    assert lab.lab_bound("bucketed_padded_fraction") == registry.bound("bucketed_padded_fraction")


def test_student_readme_lists_every_check_with_its_points(released):
    """Generated from the rubric: every check of every exercise, its points, and the exercise totals."""
    from grader.engine.rubric import load_rubric

    readme = (released / "README.md").read_text()
    assert "<!-- checks -->" not in readme and "LAB.md" in readme
    sections = readme.split("\n**")
    for exercise, checks in load_rubric().items():
        total = sum(entry.points for entry in checks.values())
        section = next(part for part in sections if part.startswith(f"{exercise}** ({total:g} points)"))
        for name, entry in checks.items():
            row = next((line for line in section.splitlines() if line.startswith(f"| `{name}` |")), None)
            assert row is not None and row.endswith(f"| {entry.points:g} |"), f"{exercise}/{name}: {row}"


def solution_leaks(root: Path) -> list[str]:
    """``file:line is solutions/x.py:n: text`` for each solution line or marker in a file under ``root``."""
    secret = solution_lines()
    leaks = []
    for path in released_files(root):
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            text = line.strip()
            if text in secret or BEGIN in text or END in text:
                leaks.append(f"{path.relative_to(root)}:{number} is {secret.get(text, 'a marker')}: {text}")
    return leaks


def test_no_solution_line_reaches_the_release(released):
    assert len(solution_lines()) > 20, "the scan found too few solution lines to mean anything"
    assert solution_leaks(released) == []


def test_the_leak_scan_finds_a_leak(released, tmp_path):
    student = tmp_path / "student"
    shutil.copytree(released, student)
    line = next(iter(solution_lines()))
    with open(student / "README.md", "a") as readme:
        readme.write(f"\n    {line}\n")
    assert len(solution_leaks(student)) == 1


def test_nothing_of_grader_or_solutions_reaches_the_release(released):
    templates = {(REPO / "grader" / "tools" / "delivery" / "templates" / "student" / name).read_bytes()
                 for name in ("README.md", "grade.yml")}
    private = {p.read_bytes() for folder in ("grader", "solutions") for p in (REPO / folder).rglob("*")
               if p.is_file() and ".node" not in p.parts and "__pycache__" not in p.parts} - templates
    # Files of solutions/ without a solution region are exercises/ files by design (lab.py, __init__.py).
    private -= {p.read_bytes() for p in (REPO / "solutions").glob("*.py") if BEGIN not in p.read_text()}
    for path in released_files(released):
        rel = path.relative_to(released)
        assert rel.parts[0] not in ("grader", "solutions"), rel
        data = path.read_bytes()
        assert data not in private, f"{rel} is a copy of a file of grader/ or solutions/"
        text = data.decode("utf-8")
        assert not _FORBIDDEN_IMPORT.search(text), f"{rel} imports grader or solutions"
        assert not re.search(r"(?<![\w-])grader/", text), f"{rel} names a path in grader/"


#: What no released file may point a student at: the instructor's package (by name, as a pytest option or an
#: environment variable) or the grader's commands, which the template does not hold.
_INSTRUCTOR_POINTER = re.compile(r"\bsolutions\b|--impl\s+solutions|LAB_IMPL=solutions|python -m grader\b")
#: The one use allowed: the feedback workflow fetches the published grader and runs it (python -m grader ...).
_WORKFLOW = ".github/workflows/grade.yml"


def instructor_pointers(root: Path) -> list[str]:
    """``file:line: text`` for each line of a released text file that points at something the student does not have."""
    found = []
    for path in released_files(root):
        rel = path.relative_to(root).as_posix()
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            text = re.sub(r"python -m grader\b", "", line) if rel == _WORKFLOW else line
            if _INSTRUCTOR_POINTER.search(text):
                found.append(f"{rel}:{number}: {line.strip()}")
    return found


def test_the_template_points_at_nothing_the_student_lacks(released):
    """No released file (handout, stubs and their lab and bench, public tests and their conftest, README) names the
    solutions, --impl solutions or a grader command; the bench that ships is documented where students read."""
    assert instructor_pointers(released) == []
    for name in ("LAB.md", "README.md"):
        assert "python -m exercises.bench" in (released / name).read_text(encoding="utf-8"), f"{name} does not mention the bench"


def test_the_pointer_scan_finds_a_pointer(released, tmp_path):
    student = tmp_path / "student"
    shutil.copytree(released, student)
    for path, line in (("LAB.md", "Figures: python -m solutions.lab --handout LAB.md"), ("tests/conftest.py", "# pytest --impl solutions"),
                       ("exercises/bench.py", "# python -m grader bench"), (_WORKFLOW, "# LAB_IMPL=solutions pytest")):
        with open(student / path, "a", encoding="utf-8") as out:
            out.write(f"\n{line}\n")
    assert len(instructor_pointers(student)) == 4


def test_student_pyproject_keeps_the_test_configuration(released):
    ours = tomllib.loads((REPO / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    theirs = tomllib.loads((released / "pyproject.toml").read_text())["tool"]["pytest"]["ini_options"]
    assert theirs["testpaths"] == ["tests"]
    assert {k: v for k, v in theirs.items() if k != "testpaths"} == {k: v for k, v in ours.items() if k != "testpaths"}
    assert "grader" not in (released / "pyproject.toml").read_text()
    with pytest.raises(ReleaseError):
        student_pyproject('[tool.pytest.ini_options]\naddopts = "--grader-option"\n')


def run_public_tests(root: Path, *args: str) -> subprocess.CompletedProcess:
    env = {k: v for k, v in os.environ.items() if k not in ("LAB_IMPL", "PYTEST_ADDOPTS")}
    return subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", *args], cwd=root,
                          env=env, capture_output=True, text=True, timeout=240)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_released_public_tests_fail_on_stubs_and_pass_on_solutions(released, tmp_path):
    student = tmp_path / "student"
    shutil.copytree(released, student)
    stubs = run_public_tests(student, "-x", "-m", "collate")
    assert stubs.returncode == 1 and "not done yet" in stubs.stdout, stubs.stdout[-3000:] + stubs.stderr[-2000:]
    for solution in (REPO / "solutions").glob("*.py"):
        shutil.copy(solution, student / "exercises" / solution.name)
    solved = run_public_tests(student, "-m", "collate or tokens")
    assert solved.returncode == 0, solved.stdout[-3000:] + solved.stderr[-2000:]
    assert re.search(r"\b(2\d|[3-9]\d) passed\b", solved.stdout), solved.stdout[-500:]


@pytest.mark.slow
def test_release_refuses_a_non_empty_folder(tmp_path):
    out = tmp_path / "out"
    out.mkdir()
    (out / "notes.txt").write_text("mine")
    with pytest.raises(ReleaseError, match="not empty.*--force"):
        release(out)
    assert [p.name for p in out.iterdir()] == ["notes.txt"]

    command = [sys.executable, "-m", "grader", "release", str(out)]
    refused = subprocess.run(command, cwd=REPO, capture_output=True, text=True, timeout=120)
    assert refused.returncode == 2 and "not empty" in refused.stderr and "--force" in refused.stderr
    assert subprocess.run([sys.executable, "-m", "grader", "release"], cwd=REPO, capture_output=True,
                          timeout=120).returncode == 2

    (out / ".git").mkdir()
    (out / ".git" / "HEAD").write_text("ref: refs/heads/main\n")
    forced = subprocess.run(command + ["--force"], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert forced.returncode == 0, forced.stderr
    assert not (out / "notes.txt").exists() and (out / ".git" / "HEAD").exists()
    assert (out / "exercises" / "collate.py").is_file()


def test_release_refuses_a_folder_inside_the_repository():
    with pytest.raises(ReleaseError, match="inside the instructor repository"):
        release(REPO / "out" / "student")
