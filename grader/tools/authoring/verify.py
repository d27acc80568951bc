"""``python -m grader verify [EXERCISE ...]``: the one command that ends every recipe of grader/docs/recipes.md.

Where ``check`` is the fast, static pass (files that exist and agree with
each other), ``verify`` runs what the change touched, for each exercise
named (default: all of them):

1. ``check``'s rules (grader/tools/authoring/lab_check.py);
2. what the change replaced, looked for where it could linger: each sentence
   of the reference's docstrings, and each default of its signatures, that
   ``solutions/<exercise>.py`` held at ``--since`` (default ``HEAD``) and no
   longer holds, searched in the public tests, the grader's checks, probes,
   tests, fixtures and corpus, the handout and the docs;
3. the reference graded: full marks; the stubs graded: zero;
4. the public tests of the exercise: every one passes on the reference and
   fails on the stubs;
5. the corpus of the exercise (grader/tests/test_corpus_answers.py and
   grader/tests/test_public_catch.py): every wrong answer loses the points of
   what it breaks and only those, every right answer scores full marks, every
   public test fails on its witness.

Each problem is one :class:`Problem`: where, what, and the fix. The command
prints them one a line and exits 1 when there is one.
"""

from __future__ import annotations

import ast
import json
import os
import re
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

from grader import registry

#: Where a replaced sentence or default could linger (relative to the repository), and which files of them.
SEARCHED = ("tests", "grader/engine", "grader/exercises", "grader/inside", "grader/tests", "grader/docs", "LAB.md", "README.md")
SEARCHED_SUFFIXES = (".py", ".md", ".toml", ".txt")
#: Files the search leaves alone: generated from what changed (``check`` says when they are stale), and the recipes,
#: whose worked examples show the text they replace.
NOT_SEARCHED = ("grader/docs/contract.md", "grader/engine/defaults.toml", "tests/defaults.toml", "tests/promises.toml",
                "grader/docs/recipes.md")
#: Folders it leaves alone: the hostile corpus attacks the grader, and its verdicts do not read the docstrings.
NOT_SEARCHED_UNDER = ("grader/tests/corpus/hostile/",)
#: A replaced sentence shorter than this (in words) is too common to search for.
MIN_SENTENCE_WORDS = 5
GRADE_TIMEOUT_S = 900
PYTEST_TIMEOUT_S = 1800


@dataclass(frozen=True)
class Problem:
    """One thing the change left wrong: ``where`` it is, ``what`` is wrong, and ``fix``, what to do about it."""

    where: str
    what: str
    fix: str

    def line(self) -> str:
        return f"{self.where}: {self.what}: {self.fix}"


# ---------------------------------------------------------------- what the change replaced


def docstring_sentences(source: str) -> set[str]:
    """The sentences of every docstring of ``source`` (the module's, its functions', classes' and methods'), whitespace
    collapsed."""
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, (ast.Module, ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            text = ast.get_docstring(node) or ""
            for paragraph in re.split(r"\n\s*\n", text):
                found |= {s for s in _sentences(" ".join(paragraph.split()))}
    return found


def _sentences(text: str) -> list[str]:
    return [s.strip() for s in re.split(r"(?<=[.!?;:])\s+(?=[A-Z(`\"'])", text) if s.strip()]


def signature_defaults(source: str) -> dict[tuple[str, str], object]:
    """{(function or Class.method, parameter): literal default} of ``source``."""
    from grader.tools.authoring.signature_defaults import module_defaults

    return {(qualname, name): value for qualname, values in module_defaults(source).items() for name, value in values.items()}


def replaced(old: str, new: str) -> tuple[list[str], dict[tuple[str, str], tuple[object, object]]]:
    """What ``new`` no longer holds of ``old``: docstring sentences (long enough to search for), and changed defaults
    as {(function, parameter): (old value, new value)}."""
    old_sentences, new_sentences = docstring_sentences(old), docstring_sentences(new)
    sentences = sorted(s for s in old_sentences - new_sentences if len(s.split()) >= MIN_SENTENCE_WORDS)
    new_defaults = signature_defaults(new)
    defaults = {key: (value, new_defaults.get(key)) for key, value in signature_defaults(old).items()
                if new_defaults.get(key, object()) != value or type(new_defaults.get(key)) is not type(value)}
    return sentences, defaults


def searched_files(repo: Path) -> Iterator[Path]:
    for top in SEARCHED:
        root = repo / top
        paths = [root] if root.is_file() else sorted(root.rglob("*")) if root.is_dir() else []
        for path in paths:
            rel = path.relative_to(repo).as_posix()
            if path.is_file() and not path.is_symlink() and path.suffix in SEARCHED_SUFFIXES and rel not in NOT_SEARCHED \
                    and not rel.startswith(NOT_SEARCHED_UNDER) and "__pycache__" not in rel:
                yield path


def _flat(text: str) -> str:
    """Text with each line's indentation and comment or quote markers dropped and whitespace collapsed: a sentence
    wrapped over comment lines or a docstring still reads as one."""
    lines = (re.sub(r"^\s*(#+|>|\"\"\"|''')?\s*", "", line) for line in text.splitlines())
    return " ".join(" ".join(lines).split())


def _line_of(text: str, words: list[str]) -> int:
    """The line of ``text`` where the first two of ``words`` stand (1 when they cannot be found)."""
    head = re.escape(" ".join(words[:2])).replace(r"\ ", r"\s+")
    match = re.search(head, text)
    return text.count("\n", 0, match.start()) + 1 if match else 1


def _entry_names(qualname: str) -> tuple[str, ...]:
    """The names a call or signature of ``qualname`` is written with: ``BucketBatchSampler.__init__`` as the class."""
    parts = qualname.split(".")
    return (parts[-2],) if parts[-1] == "__init__" and len(parts) > 1 else (parts[-1],)


def _default_hits(path: Path, text: str, qualname: str, parameter: str, old) -> list[int]:
    """Lines of ``path`` that type ``old`` again as the default of ``parameter``: a def with that parameter defaulting
    to it, a ``.get("parameter", old)``, or a signature of the entry point written out in text."""
    hits = []
    names = "|".join(map(re.escape, _entry_names(qualname)))
    value = re.escape(repr(old) if isinstance(old, str) else str(old))
    signature = re.compile(rf"\b(?:def\s+)?(?:{names})\([^()]*\b{re.escape(parameter)}\s*=\s*{value}(?![\w.])")
    if path.suffix == ".py":
        try:
            tree = ast.parse(text)
        except SyntaxError:
            tree = None
        for node in ast.walk(tree) if tree else ():
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
                arguments = node.args
                positional = arguments.posonlyargs + arguments.args
                pairs = list(zip(positional[len(positional) - len(arguments.defaults):], arguments.defaults))
                pairs += [(a, d) for a, d in zip(arguments.kwonlyargs, arguments.kw_defaults) if d is not None]
                hits += [d.lineno for a, d in pairs if a.arg == parameter and _same_literal(d, old)]
            elif (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute) and node.func.attr == "get"
                  and len(node.args) == 2 and isinstance(node.args[0], ast.Constant) and node.args[0].value == parameter
                  and _same_literal(node.args[1], old)):
                hits.append(node.lineno)
            elif isinstance(node, ast.Constant) and isinstance(node.value, str) and signature.search(node.value):
                hits.append(node.lineno)
    else:
        hits += [text.count("\n", 0, m.start()) + 1 for m in signature.finditer(text)]
    return sorted(set(hits))


def _same_literal(node: ast.expr, value) -> bool:
    try:
        found = ast.literal_eval(node)
    except ValueError:
        return False
    return type(found) is type(value) and found == value


def old_source(repo: Path, exercise: str, since: str) -> str | None:
    """``solutions/<exercise>.py`` as it was at ``since``; None when git has no such file there (a new exercise)."""
    done = subprocess.run(["git", "-C", str(repo), "show", f"{since}:solutions/{exercise}.py"], capture_output=True,
                          text=True, timeout=60)
    return done.stdout if done.returncode == 0 else None


def leftover_problems(repo: Path, exercise: str, since: str) -> list[Problem]:
    """Where the sentences and defaults that ``solutions/<exercise>.py`` replaced since ``since`` still stand."""
    old = old_source(repo, exercise, since)
    if old is None:
        return []
    new = (repo / "solutions" / f"{exercise}.py").read_text(encoding="utf-8")
    sentences, defaults = replaced(old, new)
    problems = []
    for path in searched_files(repo):
        try:
            text = path.read_text(encoding="utf-8")
        except (OSError, UnicodeDecodeError):
            continue
        rel = path.relative_to(repo).as_posix()
        flat = _flat(text)
        for sentence in sentences:
            if sentence in flat:
                problems.append(Problem(f"{rel}:{_line_of(text, sentence.split())}",
                                        f"still says {_short(sentence)!r}, which solutions/{exercise}.py no longer does",
                                        "say what the docstring says now (a corpus answer as regions needs no docstring)"))
        for (qualname, parameter), (was, now) in defaults.items():
            for line in _default_hits(path, text, qualname, parameter, was):
                now_text = "no default" if now is None else f"{now!r}"
                fix = (f"read it with grader.engine.defaults.default({exercise!r}, {qualname!r}, {parameter!r})"
                       if path.suffix == ".py" else "write the new default")
                problems.append(Problem(f"{rel}:{line}", f"types {parameter}={was!r} again, the old default of {qualname} "
                                        f"(solutions/{exercise}.py now has {now_text})", fix))
    return problems


def _short(sentence: str) -> str:
    return sentence if len(sentence) <= 90 else sentence[:87] + "..."


# ---------------------------------------------------------------- what runs


def _python(repo: Path, *args: str, timeout: float) -> subprocess.CompletedProcess:
    env = {**os.environ, "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_ADDOPTS", None)
    return subprocess.run([sys.executable, *args], cwd=repo, capture_output=True, text=True, timeout=timeout, env=env)


def grade_problems(repo: Path, exercise: str, folder: str, full: bool) -> list[Problem]:
    """The reference (``full``: every check passes) or the stubs (every check with points fails) graded on ``exercise``."""
    with tempfile.TemporaryDirectory(prefix="verify-") as tmp:
        report = Path(tmp) / "report.json"
        done = _python(repo, "-m", "grader", "grade", folder, "--only", exercise, "--seed", "1", "--quiet",
                       "--json", str(report), timeout=GRADE_TIMEOUT_S)
        if not report.is_file():
            return [Problem(f"grade {folder} --only {exercise}", f"wrote no report (exit {done.returncode}): "
                            f"{(done.stderr or done.stdout).strip()[-300:]}", "run that command to see what broke")]
        data = json.loads(report.read_text(encoding="utf-8"))
    (result,) = [e for e in data["exercises"] if e["name"] == exercise]
    checks = [c for c in result["checks"] if c["max_score"] > 0 and c["status"] != "skipped"]
    if full:
        return [Problem(f"{folder}/{exercise}.py", f"the reference fails {c['name']} ({_first_line(c['message'])})",
                        "make the check judge what the docstring promises, or the reference keep it")
                for c in checks if c["status"] != "passed"]
    return [Problem(f"exercises/{exercise}.py", f"the stub passes {c['name']}",
                    "a check must need the student's work: judge what the stub cannot do")
            for c in checks if c["status"] == "passed"]


def _first_line(text: str) -> str:
    return next((line.strip() for line in (text or "").splitlines() if line.strip()), "no message")[:200]


def pytest_problems(repo: Path, args: list[str], *, expect_pass: bool, what: str, fix: str) -> list[Problem]:
    """Run pytest with ``args``; one problem per test that did not pass (``expect_pass``) or that passed (not)."""
    with tempfile.TemporaryDirectory(prefix="verify-") as tmp:
        junit = Path(tmp) / "junit.xml"
        done = _python(repo, "-m", "pytest", *args, "-q", "-p", "no:cacheprovider", f"--junitxml={junit}",
                       timeout=PYTEST_TIMEOUT_S)
        if not junit.is_file():
            return [Problem("pytest " + " ".join(args), f"ran no tests (exit {done.returncode}): "
                            f"{(done.stdout + done.stderr).strip()[-300:]}", "run that command to see why")]
        cases = list(ET.parse(junit).getroot().iter("testcase"))
    if not cases and done.returncode not in (0, 5):
        return [Problem("pytest " + " ".join(args), f"exit {done.returncode}", "run that command to see why")]
    problems = []
    for case in cases:
        outcome = next((child for child in case if child.tag in ("failure", "error", "skipped")), None)
        name = f"{case.get('classname', '').rsplit('.', 1)[-1]}.py::{case.get('name')}"
        if expect_pass and outcome is not None and outcome.tag != "skipped":
            message = _first_line(outcome.get("message") or outcome.text or "")
            problems.append(Problem(name, f"{what}: {message}", fix))
        elif not expect_pass and outcome is None:
            problems.append(Problem(name, what, fix))
    return problems


# ---------------------------------------------------------------- the command


def steps(repo: Path, exercise: str, since: str) -> list[tuple[str, Callable[[], list[Problem]]]]:
    """The named steps of ``verify`` for one exercise, in the order they run (cheap first)."""
    marker = exercise
    return [
        ("replaced text and defaults", lambda: leftover_problems(repo, exercise, since)),
        ("the reference graded", lambda: grade_problems(repo, exercise, "solutions", full=True)),
        ("the stubs graded", lambda: grade_problems(repo, exercise, "exercises", full=False)),
        ("public tests on the reference", lambda: pytest_problems(
            repo, ["tests", "-m", marker, "--impl", "solutions"], expect_pass=True, what="fails on the reference",
            fix="make the test show what the docstring promises, or the reference keep it")),
        ("public tests on the stubs", lambda: pytest_problems(
            repo, ["tests", "-m", marker, "--impl", "exercises"], expect_pass=False, what="passes on the stub",
            fix="a public test must fail until the student does the work")),
        ("corpus", lambda: pytest_problems(
            repo, ["grader/tests/test_corpus_answers.py", "grader/tests/test_public_catch.py", "--impl", "solutions",
                   "-k", marker, "-n", "2"], expect_pass=True, what="fails",
            fix="see that test's message (pytest ... -k <its name>)")),
    ]


def verify(repo: Path, names: list[str], since: str, out=print) -> int:
    """Run ``check`` once and every step for each exercise of ``names``; print each problem on one line; 1 if any."""
    from grader.tools.authoring.lab_check import all_problems

    problems = 0
    for part, found in all_problems(repo).items():
        out(f"check, {part}: {'ok' if not found else f'{len(found)} problem(s)'}")
        for problem in found:
            out(f"  {problem}")
        problems += len(found)
    for exercise in names:
        for name, step in steps(repo, exercise, since):
            found = step()
            out(f"{exercise}, {name}: {'ok' if not found else f'{len(found)} problem(s)'}")
            for problem in found:
                out(f"  {problem.line()}")
            problems += len(found)
    out("verify: clean" if not problems else f"verify: {problems} problem(s) above, each with its fix")
    return 1 if problems else 0


def known_exercises(repo: Path) -> tuple[str, ...]:
    lab = repo / "lab.toml"
    return tuple(e.name for e in (registry.load(lab) if lab.is_file() else registry.REGISTRY))
