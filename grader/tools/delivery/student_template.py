"""``python -m grader release OUT``: write the student template repository.

The student repository is the template each student's repository is made
from, whichever host delivers the lab (see grader/docs/hosts.md).
:func:`release` writes it from this repository:

=========================================  =================================================
path in OUT                                where it comes from
=========================================  =================================================
``exercises/``                             ``exercises/`` (the generated stubs), every file
``tests/``                                 ``tests/`` (the public tests and their conftest)
``requirements.txt``                       ``requirements.txt``, unchanged
``pyproject.toml``                         ours, reduced: project metadata and the pytest
                                           configuration, with ``testpaths = ["tests"]``
``.gitignore``                             :data:`STUDENT_GITIGNORE`
``README.md``                              ``grader/tools/delivery/templates/student/README.md``, with the
                                           checks and their points (each exercise's promises.toml)
``LAB.md``                                 ``LAB.md`` (the handout)
``lab.toml``                               ``lab.toml`` without the grader's fields (the
                                           exercises, which tests/conftest.py reads, and the
                                           bounds, which the lab runner reads)
``.github/workflows/grade.yml``            ``grader/tools/delivery/templates/student/grade.yml``
=========================================  =================================================

Contract
--------
* Nothing from ``solutions/`` or ``grader/`` is copied, except the two student
  templates named above. :func:`release` refuses (:class:`ReleaseError`) when
  ``exercises/`` differs from what ``python -m grader generate`` writes, and
  when any file it would write contains a solution marker; the tests in
  ``grader/tests/test_release.py`` scan the output for solution lines too.
* Caches and build debris (``__pycache__``, ``*.pyc``, ``.pytest_cache``) are
  never copied.
* OUT must be missing or an empty directory; with ``force=True`` an existing
  OUT is emptied first (a ``.git`` directory in it is kept, so that a release
  can be written over a clone of the template repository and committed).
* The released repository is self-contained: ``pip install -r
  requirements.txt`` then ``python -m pytest`` works in it (the public tests
  fail on the stubs and pass once the exercises are solved).
"""

from __future__ import annotations

import ast
import json
import shutil
import tomllib
from pathlib import Path

from grader import registry
from grader.engine.rubric import load_rubric
from grader.paths import REPO
from grader.text import first_paragraph

__all__ = ["REPO", "STUDENT_TEMPLATES", "STUDENT_GITIGNORE", "ReleaseError", "release", "student_pyproject"]


STUDENT_TEMPLATES = Path(__file__).resolve().parent / "templates" / "student"
"""Where the student README and workflow templates live."""

STUDENT_GITIGNORE = """\
# Python
__pycache__/
*.pyc
.pytest_cache/
# Your virtual environment (see README.md)
.venv/
venv/
"""
"""The released ``.gitignore``."""

_SKIP_NAMES = {"__pycache__", ".pytest_cache", ".mypy_cache", ".ruff_cache"}
_SKIP_SUFFIXES = (".pyc", ".pyo")
_SOLUTION_MARKERS = ("### BEGIN SOLUTION", "### END SOLUTION")


class ReleaseError(RuntimeError):
    """The student repository cannot be written (OUT not empty, stale stubs, a leak)."""


def _copy_tree(src: Path, dest: Path) -> list[Path]:
    """Copy the regular files under ``src`` to ``dest`` (skipping caches); return the files written."""
    written = []
    for path in sorted(src.rglob("*")):
        rel = path.relative_to(src)
        if any(part in _SKIP_NAMES for part in rel.parts) or path.suffix in _SKIP_SUFFIXES:
            continue
        if path.is_symlink():
            raise ReleaseError(f"{path} is a symbolic link; the release copies plain files only")
        if path.is_file():
            target = dest / rel
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(path, target)
            written.append(target)
    return written


def _toml_value(value: object) -> str:
    """A TOML literal for a str, int, float, bool or list of those (JSON's syntax is valid TOML for these)."""
    if isinstance(value, list):
        if len(value) > 3:
            return "[\n" + "".join(f"    {_toml_value(v)},\n" for v in value) + "]"
        return "[" + ", ".join(_toml_value(v) for v in value) + "]"
    if isinstance(value, (bool, int, float, str)):
        return json.dumps(value, ensure_ascii=False)
    raise ReleaseError(f"pyproject.toml: cannot carry {value!r} into the student pyproject")


def student_pyproject(source: str) -> str:
    """The student ``pyproject.toml`` made from the instructor's ``source`` text.

    Keeps the ``[project]`` table and ``[tool.pytest.ini_options]`` (markers,
    timeout, addopts, pythonpath ...) with ``testpaths`` set to ``["tests"]``;
    drops every other table. The result parses with ``tomllib`` and never
    mentions ``grader``.
    """
    data = tomllib.loads(source)
    lines = ["# The exercises' test configuration. The pinned versions live in requirements.txt.", ""]
    project = data.get("project", {})
    if project:
        lines.append("[project]")
        lines += [f"{key} = {_toml_value(value)}" for key, value in project.items()]
        lines.append("")
    pytest_options = dict(data.get("tool", {}).get("pytest", {}).get("ini_options", {}))
    pytest_options["testpaths"] = ["tests"]
    lines.append("[tool.pytest.ini_options]")
    lines += [f"{key} = {_toml_value(value)}" for key, value in pytest_options.items()]
    text = "\n".join(lines) + "\n"
    tomllib.loads(text)  # a malformed result is a bug here, not in the student's repository
    if "grader" in text:
        raise ReleaseError("the student pyproject.toml would mention grader; remove it from pyproject.toml")
    return text


def _check_out(out: Path, force: bool) -> None:
    """Raise unless ``out`` is missing, an empty directory, or a directory and ``force`` is set."""
    if out.exists() and not out.is_dir():
        raise ReleaseError(f"{out} exists and is not a directory")
    existing = sorted(out.iterdir()) if out.is_dir() else []
    if existing and not force:
        raise ReleaseError(f"{out} is not empty ({len(existing)} entries, e.g. {existing[0].name}); "
                           f"choose an empty or new folder, or pass --force to replace its contents")


def _empty_out(out: Path) -> None:
    """Make ``out`` an empty directory, keeping a ``.git`` in it."""
    existing = sorted(out.iterdir()) if out.is_dir() else []
    for entry in existing:
        if entry.name == ".git":
            continue
        if entry.is_dir() and not entry.is_symlink():
            shutil.rmtree(entry)
        else:
            entry.unlink()
    out.mkdir(parents=True, exist_ok=True)


def _check_stubs_fresh(repo: Path) -> None:
    from grader.tools.authoring.stubs import stale_files

    stale = stale_files(repo / "solutions", repo / "exercises")
    if stale:
        raise ReleaseError(f"exercises/ is out of date with solutions/ ({', '.join(stale)}); "
                           f"run: python -m grader generate")


def check_descriptions(repo: Path, exercise: str) -> dict[str, str]:
    """{check name: first paragraph of its docstring} of grader/exercises/<exercise>/check_<exercise>.py, read without importing it."""
    tree = ast.parse((repo / registry.exercise(exercise).checks).read_text(encoding="utf-8"))
    described = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef) and node.name.startswith("check_"):
            first = first_paragraph(ast.get_docstring(node)).removeprefix("Proves ").removeprefix("that ")
            described[node.name.removeprefix("check_")] = first.replace("|", "\\|")
    return described


def points_table(repo: Path) -> str:
    """Markdown: per exercise, each check's promise and points, from the rubric (never the inputs)."""
    rubric = load_rubric(repo=repo)
    lines = []
    for exercise, checks in rubric.items():
        described = check_descriptions(repo, exercise)
        total = sum(entry.points for entry in checks.values())
        lines += ["", f"**{exercise}** ({total:g} points)", "", "| check | what it proves | points |", "| --- | --- | ---: |"]
        for name, entry in checks.items():
            note = " (needs a GPU runner; not run elsewhere)" if "gpu" in name else ""
            lines.append(f"| `{name}` | {described.get(name, '')}{note} | {entry.points:g} |")
    return "\n".join(lines).strip() + "\n"


STUDENT_FIELDS = ("name", "entry_points", "handout", "experiment")


def student_lab_toml(repo: Path) -> str:
    """The exercises for the student's tests/conftest.py: lab.toml without the grader's fields."""
    lines = ["# The lab's exercises, in order (the instructor's lab.toml, without the grader's details),",
             "# and the bounds the lab runner's [ok] lines judge by (the grader's checks use the same).", ""]
    data = tomllib.loads((repo / "lab.toml").read_text(encoding="utf-8"))
    lines += ["[bounds]", *(f"{key} = {_toml_value(value)}" for key, value in data.get("bounds", {}).items()), ""]
    for entry in data["exercise"]:
        lines.append("[[exercise]]")
        lines += [f"{key} = {_toml_value(entry[key])}" for key in STUDENT_FIELDS]
        lines.append("")
    return "\n".join(lines)


def student_readme(repo: Path) -> str:
    """The student README: the template with the checks table in place of ``<!-- checks -->``."""
    template = (STUDENT_TEMPLATES / "README.md").read_text(encoding="utf-8")
    if "<!-- checks -->" not in template:
        raise ReleaseError(f"{STUDENT_TEMPLATES / 'README.md'} has no <!-- checks --> marker")
    return template.replace("<!-- checks -->", points_table(repo).rstrip("\n"))


def release(out: Path, repo: Path = REPO, force: bool = False) -> list[Path]:
    """Write the student repository made from ``repo`` into ``out``; return the files written, sorted.

    Raises :class:`ReleaseError` when ``out`` is a non-empty directory and
    ``force`` is false (nothing is written then), when ``exercises/`` is stale,
    or when a file to be written holds a solution marker. See the module
    docstring for what goes in.
    """
    out = Path(out)
    repo = Path(repo)
    if (out.resolve() == repo.resolve()) or repo.resolve() in out.resolve().parents:
        raise ReleaseError(f"{out} is inside the instructor repository {repo}; release to a folder outside it")
    _check_out(out, force)
    _check_stubs_fresh(repo)
    _empty_out(out)

    written = _copy_tree(repo / "exercises", out / "exercises")
    written += _copy_tree(repo / "tests", out / "tests")
    simple = {
        "requirements.txt": (repo / "requirements.txt").read_text(encoding="utf-8"),
        "pyproject.toml": student_pyproject((repo / "pyproject.toml").read_text(encoding="utf-8")),
        ".gitignore": STUDENT_GITIGNORE,
        "README.md": student_readme(repo),
        "LAB.md": (repo / "LAB.md").read_text(encoding="utf-8"),
        "lab.toml": student_lab_toml(repo),
        ".github/workflows/grade.yml": (STUDENT_TEMPLATES / "grade.yml").read_text(encoding="utf-8"),
    }
    for rel, text in simple.items():
        target = out / rel
        target.parent.mkdir(parents=True, exist_ok=True)
        target.write_text(text, encoding="utf-8", newline="\n")
        written.append(target)

    for path in written:
        text = path.read_text(encoding="utf-8", errors="replace")
        marker = next((m for m in _SOLUTION_MARKERS if m in text), None)
        if marker:
            raise ReleaseError(f"{path.relative_to(out)} contains {marker!r}: a solution would leak; "
                               f"the release in {out} is incomplete and must not be published")
    return sorted(written)
