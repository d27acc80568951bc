"""Generate the student stubs in ``exercises/`` from the reference ``solutions/``.

``solutions/`` is the single source of truth. In each exercise module the
parts a student writes lie between ``### BEGIN SOLUTION`` and
``### END SOLUTION``. nbgrader's ClearSolutions preprocessor (its public
``preprocess``, on a one-cell notebook made of the module; the version is
pinned in requirements-instructor.txt) replaces each region by a
placeholder indented like the marker and keeps every other line
(docstrings, signatures, imports) unchanged; the placeholder then becomes
the region's stub, which depends on where the region sits:

- inside a function or method: ``raise NotImplementedError("<exercise>:
  <name> is not implemented yet ...")``, pointing at the docstring and the
  handout sections named on the module docstring's ``Handout:`` line;
- directly in a class body (helper methods of the reference): a comment
  inviting the student to add what they need, since a ``raise`` there would
  break the import.

Files without markers (``__init__.py``, ``lab.py``, ``bench.py``, ``score.py``) are copied as they are.
"""

from __future__ import annotations

import re
from pathlib import Path

from grader.registry import CONTRACT_FILES

BEGIN = "### BEGIN SOLUTION"
END = "### END SOLUTION"
GENERATED_FILES = ("__init__.py", *CONTRACT_FILES, "lab.py", "bench.py", "score.py")
_SCOPE = re.compile(r"^(\s*)(?:async\s+def|def|class)\s+(\w+)")
_LAB_POINTER = re.compile(r"^Handout:\s*(.+?)\.?\s*$", re.MULTILINE)


class StubError(ValueError):
    """A solution file whose markers cannot be turned into stubs."""


#: What nbgrader puts in place of every region; replaced afterwards by that region's own stub.
PLACEHOLDER = "@@STUB_OF_THIS_REGION@@"


def clear_solutions(source: str) -> str:
    """Run nbgrader's ClearSolutions preprocessor, through its public ``preprocess``,
    on a one-cell notebook holding ``source``: every region becomes PLACEHOLDER,
    indented like its BEGIN marker. Raises StubError for unbalanced markers."""
    import nbformat.v4  # slow imports: only when generating
    from nbgrader.preprocessors import ClearSolutions

    notebook = nbformat.v4.new_notebook(cells=[nbformat.v4.new_code_cell(source)])
    notebook.metadata["kernelspec"] = {"language": "python", "name": "python3", "display_name": "Python 3"}
    clear = ClearSolutions(
        code_stub={"python": PLACEHOLDER},
        begin_solution_delimeter=BEGIN,
        end_solution_delimeter=END,
        enforce_metadata=False,  # a module is not an nbgrader notebook: no cell metadata to demand
    )
    try:
        cleared, _ = clear.preprocess(notebook, {})
    except RuntimeError as exc:  # nbgrader's words: "no end solution statement found", "nested ..."
        raise StubError(f"{BEGIN} has no matching {END} ({exc})") from None
    return cleared.cells[0].source


def enclosing_scopes(lines: list[str], index: int) -> list[tuple[str, str]]:
    """The (kind, name) of the defs and classes enclosing line ``index``, outermost first."""
    indent = len(lines[index]) - len(lines[index].lstrip())
    scopes = []
    for line in reversed(lines[:index]):
        match = _SCOPE.match(line)
        if match and len(match.group(1)) < indent:
            kind = "class" if line.lstrip().startswith("class") else "def"
            scopes.append((kind, match.group(2)))
            indent = len(match.group(1))
    return scopes[::-1]


def stub_for(lines: list[str], index: int, exercise: str, lab_pointer: str) -> str:
    """The code that replaces the region now at ``lines[index]`` (its BEGIN marker, or nbgrader's placeholder)."""
    scopes = enclosing_scopes(lines, index)
    if not scopes:
        raise StubError(f"{exercise}.py line {index + 1}: a solution region must sit inside a def or class")
    qualname = ".".join(name for _, name in scopes)
    if scopes[-1][0] == "class":
        return f"# Add any helper methods {qualname} needs here (see its docstring)."
    where = f" Read its docstring, then {lab_pointer}." if lab_pointer else " Read its docstring."
    message = f"{exercise}: {qualname} is not implemented yet.{where}"
    return f"raise NotImplementedError({message!r})"


def make_exercise(source: str, exercise: str) -> str:
    """Return the student version of one solution module's source text."""
    lines = source.split("\n")
    depth = 0
    for number, line in enumerate(lines, start=1):  # nbgrader drops a stray END silently: refuse it here
        depth += (BEGIN in line) - (END in line)
        if depth < 0:
            raise StubError(f"{exercise}.py line {number}: {END} without {BEGIN}")
        depth = max(depth, 0)
    pointer = _LAB_POINTER.search(source)
    lab_pointer = pointer.group(1) if pointer else ""
    try:
        out = clear_solutions(source).split("\n")
    except StubError as exc:
        raise StubError(f"{exercise}.py: {exc}") from None
    for index, line in enumerate(out):
        if line.strip() == PLACEHOLDER:
            out[index] = line.replace(PLACEHOLDER, stub_for(out, index, exercise, lab_pointer))
    return "\n".join(out)


def expected_exercises(solutions_dir: Path) -> dict[str, str]:
    """Map each generated file name to the text ``exercises/`` must hold."""
    files = {}
    for name in GENERATED_FILES:
        path = solutions_dir / name
        if not path.is_file():
            raise StubError(f"{path} is missing: every file in GENERATED_FILES must exist in solutions/")
        source = path.read_text(encoding="utf-8")
        files[name] = make_exercise(source, path.stem) if BEGIN in source else source
    return files


def stale_files(solutions_dir: Path, exercises_dir: Path) -> list[str]:
    """Names of the files in ``exercises_dir`` that differ from what generation would write."""
    stale = []
    for name, text in expected_exercises(solutions_dir).items():
        target = exercises_dir / name
        if not target.is_file() or target.read_text(encoding="utf-8") != text:
            stale.append(name)
    return stale


def write_exercises(solutions_dir: Path, exercises_dir: Path) -> list[str]:
    """(Re)write the generated files of ``exercises_dir``; return the names that changed."""
    changed = stale_files(solutions_dir, exercises_dir)
    exercises_dir.mkdir(parents=True, exist_ok=True)
    files = expected_exercises(solutions_dir)
    for name in changed:
        (exercises_dir / name).write_text(files[name], encoding="utf-8")
    return changed
