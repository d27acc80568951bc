"""The class of six an instructor would build to dry-run the class workflow (``dry-run --example-class``).

:func:`make_example_class` writes one folder per student, each holding the
five exercise files as ``batch`` reads them, and returns what each student
is and what the dry run must show of it:

* ``lab-reference``: the reference solutions (full marks);
* ``lab-other-route``: for every exercise a right answer of the corpus, written
  another way than the reference (full marks);
* ``lab-stubs``: the stubs students start from (zero);
* ``lab-one-bug``: the reference with one single-promise wrong answer of the
  corpus in place of its exercise (loses only that promise's points);
* ``lab-pair-a`` and ``lab-pair-b``: other right answers of the corpus, the
  second a copy of the first with every local name renamed (full marks both;
  the review lists them as a similar pair, since renaming changes no token
  copydetect compares).

Everything comes from this repository (solutions/, exercises/, the corpus):
nothing is typed here that the lab's files already say.
"""

from __future__ import annotations

import ast
import shutil
from dataclasses import dataclass
from pathlib import Path

from grader.paths import REPO
from grader.registry import EXERCISES
from grader.tools.authoring import corpus

#: Right answers left out of the class: a slow route makes the dry run slow and shows nothing more.
SLOW_MARK = "slow"


@dataclass(frozen=True)
class ExampleStudent:
    name: str
    what: str  # what this student is
    expect: str  # what the dry run must show of it


class _Renamer(ast.NodeTransformer):
    """Renames every name a function assigns (its locals, its loop and comprehension variables), consistently within
    that function; parameters, attributes, globals and strings are left as they are, so the code means the same."""

    def visit_FunctionDef(self, node):
        stored = {n.id for n in ast.walk(node) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        parameters = {a.arg for a in ast.walk(node.args) if isinstance(a, ast.arg)}
        shared = {name for n in ast.walk(node) if isinstance(n, (ast.Global, ast.Nonlocal)) for name in n.names}
        mapping = {name: f"{name}_{index}" for index, name in enumerate(sorted(stored - parameters - shared))}
        for child in ast.walk(node):
            if isinstance(child, ast.Name) and child.id in mapping:
                child.id = mapping[child.id]
        return node

    visit_AsyncFunctionDef = visit_FunctionDef


def renamed(source: str) -> str:
    """``source`` with every function's local names renamed (see :class:`_Renamer`): the same code, other names."""
    return ast.unparse(_Renamer().visit(ast.parse(source)))


def _right_answers(exercise: str) -> list[corpus.CorpusEntry]:
    return [e for e in corpus.entries("right") if e.exercise == exercise and SLOW_MARK not in e.name]


def single_promise_bug() -> corpus.CorpusEntry:
    """The first wrong answer of the corpus that breaks one promise and needs no whole module of its own."""
    return next(e for e in corpus.entries("wrong") if len(e.breaks) == 1 and not e.hidden
                and e.source() != e.path.read_text(encoding="utf-8"))


def make_example_class(dest: Path) -> list[ExampleStudent]:
    """Write the six students into ``dest`` (made, or emptied first when it holds only an earlier example class)."""
    dest = Path(dest)
    if dest.exists():
        if any(p for p in dest.iterdir() if not p.name.startswith("lab-") and p.name != "README.md"):
            raise FileExistsError(f"{dest} holds more than an example class: give another folder")
        shutil.rmtree(dest)
    modules = [f"{exercise}.py" for exercise in EXERCISES]

    def write(student: str, sources: dict[str, str]) -> None:
        (dest / student).mkdir(parents=True)
        for module in modules:
            (dest / student / module).write_text(sources[module], encoding="utf-8")

    def files(folder: Path) -> dict[str, str]:
        return {module: (folder / module).read_text(encoding="utf-8") for module in modules}

    reference = files(REPO / "solutions")
    write("lab-reference", reference)
    write("lab-other-route", {f"{e}.py": _right_answers(e)[0].source() for e in EXERCISES})
    write("lab-stubs", files(REPO / "exercises"))
    bug = single_promise_bug()
    write("lab-one-bug", {**reference, bug.module: bug.source()})
    pair = {f"{e}.py": _right_answers(e)[-1].source() for e in EXERCISES}
    write("lab-pair-a", pair)
    write("lab-pair-b", {module: renamed(source) for module, source in pair.items()})
    students = [
        ExampleStudent("lab-reference", "the reference solutions", "full marks"),
        ExampleStudent("lab-other-route", "a right answer of the corpus per exercise, another route than the reference",
                       "full marks"),
        ExampleStudent("lab-stubs", "the stubs students start from", "zero"),
        ExampleStudent("lab-one-bug", f"the reference with {bug.id} ({bug.claim})",
                       f"loses only the points of {', '.join(bug.breaks)}"),
        ExampleStudent("lab-pair-a", "other right answers of the corpus", "full marks; a similar pair with lab-pair-b"),
        ExampleStudent("lab-pair-b", "lab-pair-a with every local name renamed", "full marks; a similar pair with lab-pair-a"),
    ]
    lines = ["# An example class, made by python -m grader dry-run --example-class", "",
             "| Student | What it is | What the dry run must show |", "| --- | --- | --- |"]
    lines += [f"| {s.name} | {s.what} | {s.expect} |" for s in students]
    (dest / "README.md").write_text("\n".join(lines) + "\n", encoding="utf-8")
    return students
