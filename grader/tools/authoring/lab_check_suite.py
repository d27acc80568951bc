"""The parts of ``python -m grader check`` about the suite's evidence: public tests, corpora, documentation.

Each function returns one line per problem, with its fix, and is the static
half of a test (named in its docstring); :mod:`grader.tools.authoring.lab_check` runs
them with the other parts.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

from grader import registry
from grader.paths import REPO
from grader.tools.authoring import answer_regions, corpus, doc_figures
from grader.tools.authoring import contract_table as contract

#: Where the witnesses of the public tests are listed (a wrong answer each public test fails on).
WITNESS_FILE = Path("grader/tests/test_public_catch.py")
#: The files whose ``secrets.X`` and ``vars.X`` the README's table must name.
SECRET_SOURCES = (".github/workflows/*.yml", "grader/tools/delivery/templates/*/*")
SECRET = re.compile(r"\$\{\{[^}]*\b(secrets|vars)\.([A-Z][A-Z0-9_]*)")
TABLE_ROW = re.compile(r"^\| `([A-Z][A-Z0-9_]*)` \|", flags=re.M)


def _exercises(repo: Path) -> tuple[str, ...]:
    return tuple(e.name for e in registry.load(repo / "lab.toml"))


def _f_strings_as_text(node: ast.expr) -> ast.expr:
    """``node`` with every f-string replaced by its source text (a lab claim may name a constant of solutions/lab.py;
    only the public tests' names are checked here, so the claim's text need not be evaluated)."""
    class Unformat(ast.NodeTransformer):
        def visit_JoinedStr(self, joined):
            return ast.copy_location(ast.Constant(ast.unparse(joined)), joined)

    return Unformat().visit(node)


def witnesses(repo: Path = REPO) -> dict[str, list[str]]:
    """WITNESSES of grader/tests/test_public_catch.py, read without importing it: {wrong answer id: [test or claim]}."""
    tree = ast.parse((repo / WITNESS_FILE).read_text(encoding="utf-8"))
    for node in tree.body:
        if isinstance(node, ast.Assign) and any(getattr(t, "id", "") == "WITNESSES" for t in node.targets):
            return ast.literal_eval(_f_strings_as_text(node.value))
    raise ValueError(f"{WITNESS_FILE} defines no WITNESSES = {{...}}")


def public_test_problems(repo: Path = REPO) -> list[str]:
    """tests/test_<exercise>.py carries its exercise's marker; every public test has a witness, a wrong answer of the
    corpus it fails on, that is not hidden from the public tests (test_public_catch.py)."""
    found, names = [], _exercises(repo)
    for name in names:
        path = repo / "tests" / f"test_{name}.py"
        if path.is_file() and f"pytestmark = pytest.mark.{name}" not in path.read_text(encoding="utf-8"):
            found.append(f"tests/test_{name}.py: add `pytestmark = pytest.mark.{name}` (students run `pytest -m {name}`)")
    given = witnesses(repo)
    witnessed = {item for items in given.values() for item in items}
    for path in sorted((repo / "tests").glob("test_*.py")):
        if path.name == "test_lab.py":
            continue
        for test in contract.functions(path, "test_"):
            if f"{path.name}::{test}" not in witnessed:
                found.append(f"tests/{path.name}::{test} has no witness: add a wrong answer it fails on to WITNESSES "
                             f"in {WITNESS_FILE} (\"wrong/<exercise>/<name>\": [\"{path.name}::{test}\"])")
    wrong = {f"wrong/{p.parent.name}/{p.stem}": p for p in (repo / "grader/tests/corpus/wrong").glob("*/*.py")}
    for answer, items in given.items():
        if answer not in wrong:
            found.append(f"{WITNESS_FILE}: WITNESSES names {answer}, which the corpus lacks: fix the name or add the file")
        elif corpus.validate_header(wrong[answer]).hidden:
            found.append(f"{WITNESS_FILE}: {answer} is hidden from the public tests, so it cannot be a witness: pick another")
        for item in items:
            file, _, test = item.partition("::")
            if test and (not (repo / "tests" / file).is_file() or test not in contract.functions(repo / "tests" / file, "test_")):
                found.append(f"{WITNESS_FILE}: WITNESSES names {item}, which is no public test: fix the name")
    return found


def corpus_problems(repo: Path = REPO) -> list[str]:
    """Every corpus file sits at <kind>/<exercise>/<name>.py, compiles (as the module it stands for) and has a header that says what it is, a wrong
    answer's `# breaks:` names promises of its own exercise, names are unique, and each exercise has at least
    MIN_WRONG wrong and MIN_RIGHT right answers (test_corpus_answers.py)."""
    found, names = [], _exercises(repo)
    promises = {e.id for e in contract.load(repo / contract.CONTRACT.relative_to(REPO)) if e.kind == "promise"}
    seen: dict[str, str] = {}
    counts = {(kind, name): 0 for kind in corpus.KINDS for name in names}
    for kind in corpus.KINDS:
        for path in sorted((repo / "grader/tests/corpus" / kind).rglob("*.py")):
            where = path.relative_to(repo)
            exercise = path.parent.name
            if path.parent.parent != repo / "grader/tests/corpus" / kind or exercise not in names:
                found.append(f"{where}: must be at grader/tests/corpus/{kind}/<exercise>/<name>.py, <exercise> one of lab.toml's")
                continue
            counts[kind, exercise] += 1
            try:
                header = corpus.validate_header(path)
                text = path.read_text(encoding="utf-8")
                if answer_regions.is_regions_file(text):  # the module it stands for, assembled from the reference
                    text = answer_regions.assemble((repo / "solutions" / f"{exercise}.py").read_text(encoding="utf-8"),
                                                   text, str(where))
                compile(text, str(where), "exec")
            except (ValueError, SyntaxError) as exc:
                found.append(f"{where}: {str(exc).replace(str(path), '').lstrip(': ')}")
                continue
            if header.kind != kind:
                found.append(f"{where}: is under {kind}/ but starts with '# {header.kind.upper()}:': move it or fix the line")
            if len(header.claim) <= 15:
                found.append(f"{where}: say what is wrong (or different) in a sentence, not {header.claim!r}")
            found += [f"{where}: `# breaks: {i}` is no promise of grader/engine/contract.toml: use a promise id of {exercise}"
                      for i in header.breaks if i not in promises or not i.startswith(f"{exercise}.")]
            if path.stem in seen:
                found.append(f"{where}: the name {path.stem} is taken by {seen[path.stem]}: rename one")
            seen.setdefault(path.stem, str(where))
    minimum = {"wrong": corpus.MIN_WRONG, "right": corpus.MIN_RIGHT}
    found += [f"{name}: {count} {kind} answers in grader/tests/corpus/{kind}/{name}/, at least {minimum[kind]} wanted: add "
              f"{minimum[kind] - count}" for (kind, name), count in counts.items() if count < minimum[kind]]
    return found


def secret_problems(repo: Path = REPO) -> list[str]:
    """The README's table of secrets and variables names every one a workflow or template reads, and no other."""
    used: dict[str, set[str]] = {}
    for pattern in SECRET_SOURCES:
        for path in sorted(repo.glob(pattern)):
            if path.is_file():
                for _, name in SECRET.findall(path.read_text(encoding="utf-8", errors="replace")):
                    used.setdefault(name, set()).add(path.relative_to(repo).as_posix())
    listed = set(TABLE_ROW.findall((repo / "README.md").read_text(encoding="utf-8")))
    found = [f"README.md: the table of secrets and variables lacks {name} (read by {', '.join(sorted(files))}): add its row"
             for name, files in sorted(used.items()) if name not in listed]
    found += [f"README.md: the table of secrets and variables names {name}, which no workflow reads: remove its row"
              for name in sorted(listed - set(used) - {"GRADER_SEED_KEY"})]
    return found


def workflow_text_problems(repo: Path = REPO) -> list[str]:
    """The class workflow's form states the slicing the script does (YAML has no place for a generated figure)."""
    from grader.tools.class_grading.dry_run import workflow_slicing

    per_slice, most = workflow_slicing(repo / doc_figures.SLICING)
    said = f"(1-{most}), or auto: one per {per_slice} students"
    workflow = ".github/workflows/grade-class.yml"
    if said not in (repo / workflow).read_text(encoding="utf-8"):
        return [f"{workflow}: the slices input must say \"{said}\" ({doc_figures.SLICING} slices so): fix its description"]
    return []


def doc_problems(repo: Path = REPO) -> list[str]:
    """Every figure of the pages is the derived value (test_docs.py), the secrets table is whole, and the class
    workflow's form says how it slices."""
    return doc_figures.problems(repo) + secret_problems(repo) + workflow_text_problems(repo)
