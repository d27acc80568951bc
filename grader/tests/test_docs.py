"""The documentation is a front door that tells the truth: README.md short, every figure derived, every secret in
its table, every reference to the design resolving, and ``check`` saying each problem in one line with its fix.

Proves: the pages' figures equal what grader/tools/authoring/doc_figures.py derives now;
the README's table names every secret and variable the workflows and the
templates read; every mention of DESIGN.md outside grader/docs/ is
grader/docs/DESIGN.md, and every principle cited exists; ``check`` finds a
rubric that is not worth POINTS_PER_EXERCISE, a missing public test and a stale
figure, each in one line, and says what to rebuild after a change. Does not
prove that the prose is right: a person reads it.
"""

from __future__ import annotations

import re
import shutil
import subprocess
from pathlib import Path

import pytest

from grader.engine.rubric import POINTS_PER_EXERCISE
from grader.paths import REPO
from grader.tools.authoring import doc_figures, lab_check, lab_check_suite, rebuilds

README_MAX_LINES = 250
DOCS = REPO / "grader" / "docs"


def test_the_readme_is_a_front_door():
    lines = (REPO / "README.md").read_text(encoding="utf-8").splitlines()
    assert len(lines) <= README_MAX_LINES, f"README.md has {len(lines)} lines; move detail to grader/docs/"
    for heading in ("## The two commands", "## Adopt it", "### The class workflow on GitHub Actions", "### Classroom 50",
                    "### Gradescope", "## Secrets and variables"):
        assert heading in lines, f"README.md lacks {heading!r}"


def test_every_figure_is_derived_and_current():
    assert doc_figures.problems() == [], "run python -m grader docs"
    assert set(doc_figures.PAGES) >= {"README.md"} | {f"grader/docs/{p.name}" for p in DOCS.glob("*.md")}


def test_a_stale_or_unknown_figure_is_found(tmp_path):
    _copy(tmp_path, "lab.toml", ".github/scripts/list-repositories.py")
    (tmp_path / "grader" / "docs").mkdir(parents=True)
    for page in doc_figures.PAGES:
        (tmp_path / page).write_text("nothing to derive\n")
    (tmp_path / "README.md").write_text("<!-- n:exercises -->4<!-- /n --> and <!-- n:nonsense -->1<!-- /n -->, "
                                        "<!-- n:s_per_student -->2<!-- /n -->\n")
    found = doc_figures.problems(tmp_path)
    exercises = doc_figures.values()["exercises"]
    assert found == [f"README.md: exercises says 4, it is {exercises}: run python -m grader docs",
                     "README.md: the figure 'nonsense' is unknown: use one of grader/tools/authoring/doc_figures.py's FIGURES",
                     "README.md: s_per_student comes from grader/docs/measured.toml, which is missing: run python -m "
                     "grader bench --record"]
    doc_figures.write(tmp_path)
    assert f"<!-- n:exercises -->{exercises}<!-- /n -->" in (tmp_path / "README.md").read_text()


def test_the_secrets_table_names_every_secret_and_variable(tmp_path):
    assert lab_check_suite.secret_problems() == []
    (tmp_path / ".github" / "workflows").mkdir(parents=True)
    (tmp_path / ".github" / "workflows" / "x.yml").write_text("env:\n  A: ${{ secrets.NEW_TOKEN }}\n")
    (tmp_path / "README.md").write_text("| `OLD_VAR` | variable |\n")
    assert lab_check_suite.secret_problems(tmp_path) == [
        "README.md: the table of secrets and variables lacks NEW_TOKEN (read by .github/workflows/x.yml): add its row",
        "README.md: the table of secrets and variables names OLD_VAR, which no workflow reads: remove its row"]


def test_every_reference_to_the_design_resolves():
    listed = subprocess.run(["git", "ls-files", "--cached", "--others", "--exclude-standard"], cwd=REPO,
                            capture_output=True, text=True, check=True).stdout.split()
    design = (DOCS / "DESIGN.md").read_text(encoding="utf-8")
    principles = {int(n) for n in re.findall(r"^(\d+)\. \*\*", design, flags=re.M)}
    assert len(principles) >= 9
    bare, unknown = [], []
    for name in listed:
        path = REPO / name
        if path.suffix not in (".py", ".md", ".yml", ".sh", ".toml") or not path.is_file() or path == Path(__file__):
            continue
        text = path.read_text(encoding="utf-8", errors="replace")
        for match in re.finditer(r"(\S*)DESIGN\.md[,:]?\s*principles?\s+([\d, and]+)|(\S*)DESIGN\.md", text):
            prefix = match.group(1) if match.group(1) is not None else match.group(3)
            if not prefix.strip("`\"'(").endswith("grader/docs/") and not name.startswith("grader/docs/"):
                bare.append(f"{name}: {match.group(0)}")
            cited = {int(n) for n in re.findall(r"\d+", match.group(2) or "")}
            unknown += [f"{name}: principle {n}" for n in cited - principles]
    assert not bare, f"DESIGN.md is grader/docs/DESIGN.md: {bare}"
    assert not unknown, f"grader/docs/DESIGN.md has no such principle: {unknown}"


def test_every_page_the_docs_name_exists():
    text = "".join(p.read_text(encoding="utf-8") for p in [REPO / "README.md", *DOCS.glob("*.md")])
    missing = sorted({m for m in re.findall(r"grader/docs/[\w.-]+\.md", text) if not (REPO / m).is_file()})
    assert not missing, missing


def _copy(tmp_path, *names):
    for name in names:
        target = tmp_path / name
        target.parent.mkdir(parents=True, exist_ok=True)
        (shutil.copytree if (REPO / name).is_dir() else shutil.copy)(REPO / name, target)
    return tmp_path


def test_check_finds_a_rubric_not_worth_the_points_in_one_line(tmp_path):
    repo = _copy(tmp_path, "lab.toml", "grader/exercises")
    points = repo / "grader" / "exercises" / "collate" / "promises.toml"
    text = points.read_text()
    assert text.count('id = "collate.inputs_are_not_modified"\npoints = 1\n') == 1
    points.write_text(text.replace('id = "collate.inputs_are_not_modified"\npoints = 1\n',
                                   'id = "collate.inputs_are_not_modified"\npoints = 3\n'))
    assert lab_check.rubric_problems(repo) == [
        f"collate: its promises are worth {POINTS_PER_EXERCISE + 2} points in "
        "grader/exercises/collate/promises.toml, every exercise is worth "
        f"{POINTS_PER_EXERCISE}: move points between its promises until they add up"]


def test_check_names_a_missing_public_test_and_its_fix(tmp_path):
    repo = _copy(tmp_path, "lab.toml")
    problems = lab_check.registry_problems(repo)
    assert ("collate: tests/test_collate.py is missing: write the public tests (grader/docs/recipes.md, Add an "
            "exercise, step 8)") in problems
    assert all("\n" not in p for p in problems)


def test_check_says_what_to_rebuild_after_a_change(tmp_path, monkeypatch):
    monkeypatch.delenv("PYTEST_CURRENT_TEST")  # record() keeps no record of the suite's own builds
    repo = _copy(tmp_path, "lab.toml", "grader/exercises/collate/promises.toml", "grader/tools/delivery/templates")
    assert all("never built from this clone" in line for line in rebuilds.report(repo))
    rebuilds.record("template", tmp_path / "out", repo)
    rebuilds.record("Gradescope zip", tmp_path / "z.zip", repo)
    assert [line.split(":")[1].split()[0] for line in rebuilds.report(repo)] == ["up", "never", "up", "never"]
    (repo / "grader" / "exercises" / "collate" / "promises.toml").write_text("[points]\n")
    lines = rebuilds.report(repo)
    assert lines[0].startswith("template: REBUILD (built from ") and "python -m grader release OUT --force" in lines[0]
    assert lines[2].startswith("Gradescope zip: REBUILD"), "the points are part of the grader the zip carries"


def test_check_says_when_a_rebuild_would_drop_the_course_key_or_did(tmp_path, monkeypatch):
    """The record says whether the zip carried the course key (never the key); a rebuild shows the command with the
    key, and a keyless rebuild after a keyed one is named, also when the hash says up to date."""
    monkeypatch.delenv("PYTEST_CURRENT_TEST")
    repo = _copy(tmp_path, "lab.toml", "grader/exercises/collate/promises.toml", "grader/tools/delivery/templates")
    rebuilds.record("Gradescope zip", tmp_path / "z.zip", repo, course_key=True)
    record = (repo / rebuilds.RECORD_NAME).read_text()
    assert '"course_key": true' in record and "GRADER_SEED_KEY=" not in record
    (repo / "grader" / "exercises" / "collate" / "promises.toml").write_text("[points]\n")
    (zip_line,) = [line for line in rebuilds.report(repo) if line.startswith("Gradescope zip")]
    assert "REBUILD" in zip_line and rebuilds.KEYED_COMMAND in zip_line and "course key" in zip_line, zip_line
    assert not [line for line in rebuilds.report(repo) if "warning" in line]
    rebuilds.record("Gradescope zip", tmp_path / "z.zip", repo, course_key=False)  # the rebuild without the key
    lines = rebuilds.report(repo)
    at = next(i for i, line in enumerate(lines) if line.startswith("Gradescope zip"))
    assert "up to date" in lines[at] and "without the course key" in lines[at + 1], lines
    assert rebuilds.KEYED_COMMAND in lines[at + 1]
    rebuilds.record("Gradescope zip", tmp_path / "z.zip", repo, course_key=True)
    assert not [line for line in rebuilds.report(repo) if "warning" in line]


@pytest.mark.slow
def test_the_check_command_prints_one_line_per_part_and_the_rebuilds(capsys):
    from grader.cli import main

    assert main(["check"]) == 0
    out = capsys.readouterr().out
    parts = [line.split(":")[0] for line in out.splitlines() if line.endswith(": ok")]
    assert parts == list(lab_check.PARTS)
    assert [a.name for a in rebuilds.ARTIFACTS] == [line.strip().split(":")[0] for line in out.splitlines()[-4:]]


def test_the_measured_figures_come_from_the_recorded_run(tmp_path):
    """bench --record writes the run; docs derives the measured figures from it, a slice's minutes included."""
    from grader.tools.authoring import doc_figures, grading_bench

    repo = _copy(tmp_path, ".github/scripts/list-repositories.py")
    (repo / doc_figures.MEASURED).parent.mkdir(parents=True, exist_ok=True)
    grading_bench.write_measured(repo / doc_figures.MEASURED, {
        "measured_at": "2026-12-04 21:30 UTC", "cores": 2, "load_before": 0.4, "load_after": 2.5, "repeats": 1,
        "solutions_s": 12.5, "stubs_s": 3.0, "class_size": 30, "class_jobs": 2, "class_s": 180.0, "s_per_student": 6.0})
    figure = {name: doc_figures.FIGURES[name](repo) for name in (
        "s_per_student", "measured_at", "measured_load", "measured_class_s", "slice_minutes", "per_slice")}
    assert figure["s_per_student"] == "6" and figure["measured_at"] == "2026-12-04 21:30 UTC"
    assert figure["measured_load"] == "0.4-2.5" and figure["measured_class_s"] == "180"
    assert figure["slice_minutes"] == f"{int(figure['per_slice']) * 6 / 60:.1f}"
