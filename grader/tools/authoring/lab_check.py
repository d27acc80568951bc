"""``python -m grader check``: every rule the suite enforces about the lab's files, checked in one place.

Like rustlings' ``dev check``: the registry (lab.toml) names each exercise and
the rest is derived from the name, so this proves that what is derived
exists and that the files that repeat a name agree with it. Each part below
is the static half of a test of grader/tests/ (named in its docstring); a
problem is one line that says what is wrong and how to fix it, never a
traceback. What only running code can show (a public test fails on the stub
and passes on the reference, a wrong answer loses points) stays the suite's.

* registry: each exercise's solution, stub, probe, check file, promise file and public test
  exist, and the solution defines every entry point (test_registry.py);
* rubric: every check of each exercise has its promise, with points, adding up to
  :data:`~grader.engine.rubric.POINTS_PER_EXERCISE`; each check says what it
  proves (test_rubric.py);
* stubs: exercises/ is what ``generate`` makes from solutions/ (test_stubs.py);
* handout: LAB.md has the section every exercise points students to (test_handout.py);
* contract: the contract table holds and grader/docs/contract.md shows it (test_contract.py);
* public tests, corpus, docs: :mod:`grader.tools.authoring.lab_check_suite`.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

from grader import registry
from grader.engine.rubric import POINTS_PER_EXERCISE, RubricError, load_throughput_rule, points_of
from grader.paths import REPO
from grader.tools.authoring import contract_doc, public_promises, signature_defaults
from grader.tools.authoring import contract_table as contract
from grader.tools.authoring.lab_check_suite import corpus_problems, doc_problems, public_test_problems
from grader.tools.authoring.stubs import stale_files

RECIPE = "grader/docs/recipes.md"


def exercises(repo: Path) -> tuple[registry.Exercise, ...]:
    """The registry of ``repo`` (the one this grader runs from, unless a test passes another)."""
    return registry.REGISTRY if repo == REPO or not (repo / "lab.toml").is_file() else registry.load(repo / "lab.toml")


def registry_problems(repo: Path = REPO) -> list[str]:
    names = {entry.name for entry in exercises(repo)}
    found = [f"grader/exercises/{folder.name}/ is no exercise of lab.toml: register it, or move what it holds into "
             "the folder of its exercise" for folder in sorted((repo / "grader" / "exercises").glob("*/"))
             if folder.is_dir() and folder.name not in names and folder.name != "__pycache__"]
    for entry in exercises(repo):
        probe_file = Path(*entry.probe.split(".")).with_suffix(".py")
        step = f"({RECIPE}, Add an exercise, step {{}})"
        for path, how in ((Path("solutions") / entry.module, "write the reference " + step.format(2)),
                          (Path("exercises") / entry.module, "run python -m grader generate"),
                          (probe_file, "write the probe " + step.format(5)),
                          (Path(entry.checks), "write the checks " + step.format(6)),
                          (Path(entry.promises), "write its promises and points " + step.format(7)),
                          (Path("tests") / f"test_{entry.name}.py", "write the public tests " + step.format(8))):
            if not (repo / path).is_file():
                found.append(f"{entry.name}: {path} is missing: {how}")
        solution = repo / "solutions" / entry.module
        if solution.is_file():
            defined = _top_level_names(solution)
            found += [f"{entry.name}: solutions/{entry.module} does not define the entry point {name}: define it, "
                      f"or fix entry_points in lab.toml" for name in entry.entry_points if name not in defined]
    return found


def rubric_problems(repo: Path = REPO) -> list[str]:
    found = []
    try:
        load_throughput_rule(repo=repo)
    except RubricError as exc:
        found.append(str(exc))
    for entry in exercises(repo):
        if not (repo / entry.checks).is_file() or not (repo / entry.promises).is_file():
            continue
        try:
            points = points_of(repo / entry.promises, entry.name)
        except RubricError as exc:
            found.append(str(exc))
            continue
        checks = [name.removeprefix("check_") for name in contract.functions(repo / entry.checks, "check_")]
        found += [f"{entry.name}: check_{name} has no promise, so no points: add a [[promise]] with id = "
                  f"\"{entry.name}.{name}\" and its points to {entry.promises}" for name in checks if name not in points]
        found += [f"{entry.name}: {entry.promises} gives points to {entry.name}.{name}, but {entry.checks} has no "
                  f"check_{name} to judge it: write the check, or rename the entry after the check that proves it"
                  for name in points if name not in checks]
        total = sum(e.points for e in points.values())
        if points and total != POINTS_PER_EXERCISE:
            found.append(f"{entry.name}: its promises are worth {total:g} points in {entry.promises}, every exercise is worth "
                         f"{POINTS_PER_EXERCISE}: move points between its promises until they add up")
        found += [f"{entry.name}: {name}'s docstring must begin with 'Proves ' (what the check proves): "
                  f"write it in {entry.checks}" for name in _unproven_checks(repo / entry.checks)]
    return found


def stub_problems(repo: Path = REPO) -> list[str]:
    found = [f"exercises/{name} differs from what solutions/ makes: run python -m grader generate"
             for name in stale_files(repo / "solutions", repo / "exercises")]
    found += [f"{target} differs from the defaults of the signatures in solutions/ (the checks and public tests read "
              "them there): run python -m grader generate" for target in signature_defaults.stale(repo / "solutions", repo)]
    return found


def handout_problems(repo: Path = REPO) -> list[str]:
    headings = set(re.findall(r"^#+ (.+?)\s*$", (repo / "LAB.md").read_text(encoding="utf-8"), flags=re.M))
    return [f"{entry.name}: lab.toml points students to the LAB.md section {section!r}, which LAB.md does not have: "
            f"add a heading '## {section}'" for entry in exercises(repo) for section in (entry.handout, entry.experiment)
            if section and section not in headings]


def contract_problems(repo: Path = REPO) -> list[str]:
    try:
        found = contract.problems(repo=repo)
    except contract.ContractError as exc:
        return [str(exc)]
    if contract_doc.stale(repo / contract_doc.PAGE.relative_to(REPO), repo):
        found.append("grader/docs/contract.md's contract table is stale: run python -m grader contract")
    if public_promises.stale(repo):
        found.append(f"{public_promises.TARGET} (the students' local score reads it) is stale: run python -m grader contract")
    return found


#: part -> what checks it, in the order the command reports them.
PARTS: dict[str, Callable[[Path], list[str]]] = {
    "registry": registry_problems, "rubric": rubric_problems, "stubs": stub_problems,
    "handout": handout_problems, "contract": contract_problems, "public tests": public_test_problems,
    "corpus": corpus_problems, "docs": doc_problems,
}
#: The parts that read the files of an exercise the registry names: skipped while the registry has problems.
NEEDS_REGISTRY = ("contract", "public tests")


def all_problems(repo: Path = REPO) -> dict[str, list[str]]:
    """{part: its problems} for every part of :data:`PARTS` (an empty list: it holds).

    A part that cannot even read its files (a file missing, not UTF-8, not
    Python) reports that as its one problem instead of raising."""
    results: dict[str, list[str]] = {}
    for part, check in PARTS.items():
        if part in NEEDS_REGISTRY and results.get("registry"):
            results[part] = ["not checked until the registry's problems above are fixed"]
            continue
        try:
            results[part] = check(repo)
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError, KeyError) as exc:
            results[part] = [f"could not be checked: {type(exc).__name__}: {exc} (fix the file it names)"]
    return results


def _unproven_checks(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return [node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith("check_")
            and not (ast.get_docstring(node) or "").startswith("Proves ")]


def _top_level_names(path: Path) -> set[str]:
    """The module's top-level names, and ``Class.method`` for the methods of its classes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    names |= {f"{n.name}.{m.name}" for n in tree.body if isinstance(n, ast.ClassDef)
              for m in n.body if isinstance(m, ast.FunctionDef)}
    return names | {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
