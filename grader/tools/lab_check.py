"""``python -m grader check``: everything the lab's files must agree on, checked in one place.

Like rustlings' ``dev check``: the registry (lab.toml) names each exercise
and the rest is derived from the name, so this proves that what is derived
exists and that the files that repeat a name agree with it:

* registry: each exercise's solution, stub, probe module and check file
  exist, and the solution defines every entry point;
* rubric: every check function has points and every rubric entry is a check;
* stubs: exercises/ is what ``generate`` makes from solutions/;
* handout: LAB.md has the section every exercise points students to;
* contract: the contract table holds (:func:`grader.tools.contract.problems`)
  and README's block is rendered from it.
"""

from __future__ import annotations

import ast
import re
from collections.abc import Callable
from pathlib import Path

from grader import registry
from grader.engine.rubric import RubricError, load_rubric, load_throughput_rule
from grader.paths import REPO
from grader.tools import contract, contract_readme
from grader.tools.stubs import stale_files


def registry_problems(repo: Path = REPO) -> list[str]:
    found = []
    for entry in registry.REGISTRY:
        probe_file = Path(*entry.probe.split(".")).with_suffix(".py")
        for path in (Path("solutions") / entry.module, Path("exercises") / entry.module, probe_file, Path(entry.checks)):
            if not (repo / path).is_file():
                found.append(f"{entry.name}: {path} is missing (lab.toml names the exercise; the file follows from the name)")
        solution = repo / "solutions" / entry.module
        if solution.is_file():
            defined = _top_level_names(solution)
            found += [f"{entry.name}: solutions/{entry.module} does not define the entry point {name}"
                      for name in entry.entry_points if name not in defined]
    return found


def rubric_problems(repo: Path = REPO) -> list[str]:
    try:
        rubric = load_rubric(repo / "grader" / "engine" / "rubric.toml")
        load_throughput_rule(repo / "grader" / "engine" / "rubric.toml")
    except RubricError as exc:
        return [str(exc)]
    found = []
    for entry in registry.REGISTRY:
        checks = ({name.removeprefix("check_") for name in contract.check_names(entry.name, repo)}
                  if (repo / entry.checks).is_file() else set())
        points = set(rubric.get(entry.name, {}))
        found += [f"{entry.name}: check_{name} has no points in rubric.toml" for name in sorted(checks - points)]
        found += [f"{entry.name}: rubric.toml gives points to {name}, which is no check of {entry.checks}"
                  for name in sorted(points - checks)]
    return found


def stub_problems(repo: Path = REPO) -> list[str]:
    return [f"exercises/{name} differs from what solutions/ makes: run python -m grader generate"
            for name in stale_files(repo / "solutions", repo / "exercises")]


def handout_problems(repo: Path = REPO) -> list[str]:
    headings = set(re.findall(r"^#+ (.+?)\s*$", (repo / "LAB.md").read_text(encoding="utf-8"), flags=re.M))
    return [f"{entry.name}: lab.toml points students to the LAB.md section {section!r}, which LAB.md does not have"
            for entry in registry.REGISTRY for section in (entry.handout, entry.experiment)
            if section and section not in headings]


def contract_problems(repo: Path = REPO) -> list[str]:
    try:
        found = contract.problems(repo=repo)
    except contract.ContractError as exc:
        return [str(exc)]
    if contract_readme.stale(repo / "README.md"):
        found.append("README.md's contract block is stale: run python -m grader contract")
    return found


#: part -> what checks it, in the order the command reports them.
PARTS: dict[str, Callable[[Path], list[str]]] = {
    "registry": registry_problems, "rubric": rubric_problems, "stubs": stub_problems,
    "handout": handout_problems, "contract": contract_problems,
}


def all_problems(repo: Path = REPO) -> dict[str, list[str]]:
    """{part: its problems} for every part of :data:`PARTS` (an empty list: it holds)."""
    return {part: check(repo) for part, check in PARTS.items()}


def _top_level_names(path: Path) -> set[str]:
    """The module's top-level names, and ``Class.method`` for the methods of its classes."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    names = {n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.ClassDef))}
    names |= {f"{n.name}.{m.name}" for n in tree.body if isinstance(n, ast.ClassDef)
              for m in n.body if isinstance(m, ast.FunctionDef)}
    return names | {t.id for n in tree.body if isinstance(n, ast.Assign) for t in n.targets if isinstance(t, ast.Name)}
