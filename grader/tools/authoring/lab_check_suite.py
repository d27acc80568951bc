"""The parts of ``python -m grader check`` about the suite's evidence: public tests, corpora, documentation.

Each function returns one line per problem, with its fix, and is the static
half of a test (named in its docstring); :mod:`grader.tools.authoring.lab_check` runs
them with the other parts.
"""

from __future__ import annotations

import re
from pathlib import Path

from grader import registry
from grader.paths import REPO
from grader.tools.authoring import answer_regions, corpus, doc_figures
from grader.tools.authoring import contract_table as contract

#: The files whose ``secrets.X`` and ``vars.X`` the README's table must name.
SECRET_SOURCES = (".github/workflows/*.yml", "grader/tools/delivery/templates/*/*")
SECRET = re.compile(r"\$\{\{[^}]*\b(secrets|vars)\.([A-Z][A-Z0-9_]*)")
TABLE_ROW = re.compile(r"^\| `([A-Z][A-Z0-9_]*)` \|", flags=re.M)


def _exercises(repo: Path) -> tuple[str, ...]:
    return tuple(e.name for e in registry.load(repo / "lab.toml"))


def witnesses(repo: Path = REPO) -> dict[str, tuple[str, list[str]]]:
    """{wrong answer id: (its file relative to ``repo``, the public tests and lab claims of its ``# witness of:`` line)}.
    ValueError (naming the file) for a header that does not parse."""
    found = {}
    for exercise in _exercises(repo):
        for path in sorted((repo / "grader/exercises" / exercise / "corpus/wrong").glob("*.py")):
            header = corpus.validate_header(path)
            if header.witnesses:
                found[f"wrong/{exercise}/{path.stem}"] = (str(path.relative_to(repo)), list(header.witnesses))
    return found


def public_test_problems(repo: Path = REPO) -> list[str]:
    """tests/test_<exercise>.py carries its exercise's marker; every public test has a witness, a wrong answer of the
    corpus it fails on, that is not hidden from the public tests (test_public_catch.py)."""
    found, names = [], _exercises(repo)
    for name in names:
        path = repo / "tests" / f"test_{name}.py"
        if path.is_file() and f"pytestmark = pytest.mark.{name}" not in path.read_text(encoding="utf-8"):
            found.append(f"tests/test_{name}.py: add `pytestmark = pytest.mark.{name}` (students run `pytest -m {name}`)")
    try:
        given = witnesses(repo)
    except ValueError as exc:
        return found + [str(exc)]
    witnessed = {item for _, items in given.values() for item in items}
    for path in sorted((repo / "tests").glob("test_*.py")):
        if path.name == "test_lab.py":
            continue
        for test in contract.functions(path, "test_"):
            if f"{path.name}::{test}" not in witnessed:
                found.append(f"tests/{path.name}::{test} has no witness: give a wrong answer it fails on (in "
                             f"grader/exercises/<exercise>/corpus/wrong/) the third line '{corpus.WITNESS}{path.name}::{test}'")
    for where, items in given.values():  # a hidden answer cannot be a witness: both would be its third line
        for item in items:
            file, _, test = item.partition("::")
            if item.startswith("lab "):
                continue  # the lab's claims: test_public_catch.py holds them to solutions/lab.py's EXPECTATIONS
            if not test or not (repo / "tests" / file).is_file() or test not in contract.functions(repo / "tests" / file, "test_"):
                found.append(f"{where}: its witness line names {item}, which is no public test: fix the name")
    return found


def corpus_problems(repo: Path = REPO) -> list[str]:
    """Every corpus file sits at grader/exercises/<exercise>/corpus/<kind>/<name>.py, compiles (as the module it
    stands for) and has a header that says what it is; a wrong answer's `# breaks:` names promises (or shows entries,
    whose check it fails too) of its own exercise, names are unique, and each exercise has at least MIN_WRONG wrong and
    MIN_RIGHT right answers."""
    found, names = [], _exercises(repo)
    promises = {e.id for e in contract.load(repo) if e.kind in contract.JUDGED}
    seen: dict[str, str] = {}
    counts = {(kind, name): 0 for kind in corpus.KINDS for name in names}
    for path in sorted((repo / "grader/exercises").glob("*/corpus/**/*.py")):
        where = path.relative_to(repo)
        kind, exercise = path.parent.name, path.parent.parent.parent.name
        if path.parent.parent.name != "corpus" or kind not in corpus.KINDS or exercise not in names:
            found.append(f"{where}: must be at grader/exercises/<exercise>/corpus/<right or wrong>/<name>.py, "
                         "<exercise> one of lab.toml's")
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
        found += [f"{where}: `# breaks: {i}` is no promise of grader/exercises/{exercise}/promises.toml: use the id of "
                  "the promise whose judge it fails"
                  for i in header.breaks if i not in promises or not i.startswith(f"{exercise}.")]
        if path.stem in seen:
            found.append(f"{where}: the name {path.stem} is taken by {seen[path.stem]}: rename one")
        seen.setdefault(path.stem, str(where))
    minimum = {"wrong": corpus.MIN_WRONG, "right": corpus.MIN_RIGHT}
    found += [f"{name}: {count} {kind} answers in grader/exercises/{name}/corpus/{kind}/, at least {minimum[kind]} wanted: add "
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
