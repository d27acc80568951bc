"""exercises/ is generated from solutions/ and gives nothing away.

Design principle 1: solutions/ is the single source of truth; exercises/ is
what the generator writes from it, never edited by hand.
"""

import ast

import pytest

from grader import registry
from grader.paths import REPO
from grader.tools.authoring.stubs import BEGIN, END, GENERATED_FILES, StubError, make_exercise, stale_files

EXERCISES = registry.EXERCISES


@pytest.mark.slow
def test_exercises_match_what_the_generator_writes():
    stale = stale_files(REPO / "solutions", REPO / "exercises")
    assert not stale, f"exercises/ is out of date ({', '.join(stale)}): run python -m grader generate"


def solution_lines(source):
    """The non-blank lines strictly inside solution regions."""
    inside, lines = False, []
    for line in source.splitlines():
        if BEGIN in line:
            inside = True
        elif END in line:
            inside = False
        elif inside and line.strip():
            lines.append(line.strip())
    return lines


@pytest.mark.parametrize("name", EXERCISES)
def test_no_solution_line_reaches_the_stub(name):
    solution = (REPO / "solutions" / f"{name}.py").read_text()
    stub_lines = {line.strip() for line in (REPO / "exercises" / f"{name}.py").read_text().splitlines()}
    trivial = {"return", "pass", "else:", "try:", "yield", ")", "]", "}", "continue", "break", '"""'}
    leaked = [line for line in solution_lines(solution) if line in stub_lines and line not in trivial]
    assert not leaked, f"exercises/{name}.py contains solution lines: {leaked}"


def solution_line_numbers(source):
    """1-based numbers of the lines inside solution regions, markers included."""
    numbers, inside = set(), False
    for number, line in enumerate(source.splitlines(), start=1):
        inside = inside or BEGIN in line
        if inside:
            numbers.add(number)
        inside = inside and END not in line
    return numbers


def public_api(source):
    """{qualified name: (signature text, docstring)} for every def and class outside solution regions."""
    api = {}
    hidden = solution_line_numbers(source)

    def visit(node, prefix=""):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.ClassDef)) and child.lineno not in hidden:
                name = prefix + child.name
                signature = ast.unparse(child.args) if isinstance(child, ast.FunctionDef) else ""
                api[name] = (signature, ast.get_docstring(child))
                visit(child, name + ".")

    visit(ast.parse(source))
    return api


@pytest.mark.parametrize("name", EXERCISES)
def test_stubs_keep_every_student_facing_signature_and_docstring(name):
    solution = public_api((REPO / "solutions" / f"{name}.py").read_text())
    stub = public_api((REPO / "exercises" / f"{name}.py").read_text())
    for qualname, (signature, doc) in solution.items():
        assert qualname in stub, f"{qualname} is missing from exercises/{name}.py"
        assert stub[qualname] == (signature, doc), f"{qualname}: signature or docstring changed in the stub"


@pytest.mark.parametrize("name", EXERCISES)
def test_every_stub_raises_a_pointer_to_its_exercise(name):
    text = (REPO / "exercises" / f"{name}.py").read_text()
    raises = [line.strip() for line in text.splitlines() if "raise NotImplementedError" in line]
    assert raises, f"exercises/{name}.py has no stub"
    for line in raises:
        assert f"{name}: " in line and "is not implemented yet" in line and "docstring" in line


def test_generator_rejects_broken_markers():
    with pytest.raises(StubError, match="no matching"):
        make_exercise(f"def f():\n    {BEGIN}\n    return 1\n", "demo")
    with pytest.raises(StubError, match="without"):
        make_exercise(f"def f():\n    return 1\n    {END}\n", "demo")
    with pytest.raises(StubError, match="inside a def or class"):
        make_exercise(f"{BEGIN}\nx = 1\n{END}\n", "demo")


def test_generator_stubs_methods_and_class_bodies():
    source = f'''"""Demo.

Handout: LAB.md, "Fence 9".
"""
class A:
    def f(self):
        """Doc."""
        {BEGIN}
        return 1
        {END}

    {BEGIN}
    def _helper(self):
        return 2
    {END}
'''
    out = make_exercise(source, "demo")
    namespace = {}
    exec(compile(out, "demo.py", "exec"), namespace)  # the stub module still imports
    with pytest.raises(NotImplementedError, match=r"demo: A\.f is not implemented yet.*Fence 9"):
        namespace["A"]().f()
    assert "_helper" not in out and '"""Doc."""' in out


def test_generated_file_list_matches_solutions():
    assert sorted(p.name for p in (REPO / "solutions").glob("*.py")) == sorted(GENERATED_FILES)


def test_installed_nbgrader_is_the_pinned_one():
    """The stubs are nbgrader's output: a different nbgrader may clear regions differently, so
    exercises/ is only trusted with the version requirements-instructor.txt pins."""
    from importlib.metadata import version

    pins = [line.split("==", 1)[1].strip() for line in (REPO / "requirements-instructor.txt").read_text().splitlines()
            if line.startswith("nbgrader==")]
    assert pins, "requirements-instructor.txt must pin nbgrader with =="
    assert version("nbgrader") == pins[0], f"nbgrader {version('nbgrader')} is installed, {pins[0]} is pinned: run bash .ci/setup"


def test_nbgrader_clears_every_region_and_keeps_every_other_line():
    from grader.tools.authoring.stubs import PLACEHOLDER, clear_solutions

    source = (REPO / "solutions" / "bucketing.py").read_text()
    cleared = clear_solutions(source)
    assert cleared.count(PLACEHOLDER) == source.count(BEGIN) > 0
    outside = [line for number, line in enumerate(source.splitlines(), start=1) if number not in solution_line_numbers(source)]
    assert [line for line in cleared.splitlines() if PLACEHOLDER not in line] == outside
