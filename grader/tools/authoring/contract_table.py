"""The contract table (every exercise's grader/exercises/<exercise>/promises.toml): every docstring sentence a promise
or an explanation, and every hidden check one entry.

The student-facing docstrings are those of every class and function in
``solutions/<exercise>.py`` defined outside the solution markers (what
``exercises/`` keeps unchanged); module docstrings introduce an exercise
and promise nothing. A promise file holds three kinds of entry:

- a **promise** is everything about one promise, in one place: its id
  (``<exercise>.<name>``), whose judge is the hidden check ``check_<name>`` of
  the exercise's check file (one check, one promise); its points (and,
  optionally, its Gradescope visibility); the docstring sentence or sentences
  it proves (``quote``: one text, or a list the one judge proves together);
  the public tests that show it on fixed inputs (``test_*`` functions of
  ``tests/test_<exercise>.py``, or ``file.py::test_name`` for another file
  under ``tests/``); its boundaries, the inputs it adds to the exercise's
  pool so that every grading runs them whatever the seed (each a name its
  judge passes to ``ctx.boundaries(name=...)``); and, optionally, the states
  of its object its judge meets besides a fresh one
  (grader.engine.promise_states; all of them when the field is absent);
- a **shows** entry is a hidden check that proves no sentence (the
  pin_memory checks: PyTorch's side of what the exercise returns), worth no
  points unless it is given some;
- an **explained** sentence promises nothing of the student's code (a
  summary restated by promises, PyTorch's own behaviour, advice) and says why.

:func:`problems` is the rule grader/tests/test_contract.py and ``check``
enforce, in six parts (each a function): well-formed entries; quotes found,
exactly once, in their docstring (whitespace runs read as one space); every
word of every docstring inside some quote, section headers (``Args:``,
``Returns:``, ``Raises:``) aside; every judge and public test existing;
every check of an exercise the judge of exactly one entry, and every public
test serving one; and every boundary a promise lists run by its judge (and a
``states`` field only where its judge asks ``ctx.states``).
"""

from __future__ import annotations

import ast
import functools
import re
from dataclasses import dataclass
from pathlib import Path

from grader import registry
from grader.engine import promise_states
from grader.engine.results import VISIBILITIES
from grader.paths import REPO
from grader.toml_file import read_toml
from grader.tools.authoring.stubs import BEGIN, END

KINDS = ("promise", "shows", "explained")
#: The kinds of entry whose id names a hidden check (``check_<name>``), its judge.
JUDGED = ("promise", "shows")
#: The table of a promise file that is not an entry: the throughput rule (grader.engine.rubric).
OTHER_TABLES = ("throughput",)
FIELDS = {"promise": {"id", "points", "visibility", "doc", "quote", "tests", "boundaries", "states", "decides", "note"},
          "shows": {"id", "points", "visibility", "shows", "tests"},
          "explained": {"id", "doc", "quote", "why"}}
REQUIRED = {"promise": {"id", "points", "doc", "quote", "tests", "boundaries"}, "shows": {"id", "shows"},
            "explained": {"id", "doc", "quote", "why"}}
_ID = re.compile(r"^([a-z][a-z0-9_]*)\.([a-z][a-z0-9_]*)$")
_HEADER = re.compile(r"^\s*(?:Args|Returns|Raises):\s*$", re.MULTILINE)
_SENTENCE_END = re.compile(r"(?<=[.;:])\s+")


class ContractError(ValueError):
    """A promise file cannot be read; the message says what to fix."""


@dataclass(frozen=True)
class Entry:
    """One entry of a promise file: a promise (its judge, points, quotes, tests, boundaries), a shows entry (a check
    proving no sentence) or an explained sentence (with why)."""

    kind: str
    id: str
    doc: str = ""
    quote: str | tuple[str, ...] = ()
    points: float = 0.0
    visibility: str = "visible"
    tests: tuple[str, ...] = ()
    boundaries: tuple[str, ...] = ()
    states: tuple[str, ...] | None = None  # None: every later state (grader.engine.promise_states)
    why: str = ""
    shows: str = ""
    decides: str | tuple[str, ...] = ()
    note: str = ""

    @property
    def exercise(self) -> str:
        """The exercise the id names (its part before the dot)."""
        return self.id.partition(".")[0]

    @property
    def name(self) -> str:
        """The id without its exercise: the name of the check that judges it (without ``check_``) and of its report line."""
        return self.id.partition(".")[2]

    @property
    def check(self) -> str:
        """The hidden check that judges a promise or a shows entry: ``check_<name>`` ("" for an explained sentence)."""
        return f"check_{self.name}" if self.kind in JUDGED else ""

    @property
    def quotes(self) -> tuple[str, ...]:
        """The docstring texts it quotes (one, or the several a promise's judge proves together)."""
        return (self.quote,) if isinstance(self.quote, str) else tuple(self.quote)

    @property
    def decisions(self) -> tuple[str, ...]:
        """The open readings it closes, each "the question? the answer"."""
        return (self.decides,) if isinstance(self.decides, str) and self.decides else tuple(self.decides or ())


#: What each field holds, as (the types it may have, what to write): load_file refuses any other value with this text.
_SHAPES = {"id": ((str,), "a string"), "doc": ((str,), "a string"), "why": ((str,), "a string"),
           "shows": ((str,), "a string"), "note": ((str,), "a string"), "visibility": ((str,), "a string"),
           "points": ((int, float), "a number >= 0"), "quote": ((str, list), "a string or a list of strings"),
           "decides": ((str, list), "a string or a list of strings"), "tests": ((list,), "a list of strings"),
           "boundaries": ((list,), "a list of strings"), "states": ((list,), "a list of strings")}


def _field_problem(field: str, value) -> str:
    """What is wrong with one field's value ("" when nothing is)."""
    types, shape = _SHAPES[field]
    items = value if isinstance(value, list) else [value]
    if (isinstance(value, bool) or not isinstance(value, types) or (isinstance(value, list) and not value and field == "quote")
            or any(not isinstance(item, str) for item in items if field != "points")
            or (field == "points" and value < 0)):
        return f"{field} must be {shape}, got {value!r}"
    return ""


def load_file(path: Path, exercise: str) -> list[Entry]:
    """The entries of the promise file ``path`` of ``exercise``, promises first, each kind in file order; ContractError
    for bad TOML, unknown tables or fields, a field of the wrong type, or an entry whose id names another exercise."""
    data = read_toml(path, "it lists every promise of the exercise's docstrings", ContractError)
    unknown = set(data) - set(KINDS) - set(OTHER_TABLES)
    if unknown:
        raise ContractError(f"{path}: unknown tables {sorted(unknown)}; expected "
                            f"{', '.join(f'[[{kind}]]' for kind in KINDS)} and {', '.join(f'[{name}]' for name in OTHER_TABLES)}"
                            + (" (points live in each [[promise]] entry now: `points = N`)" if "points" in unknown else ""))
    entries = []
    for kind in KINDS:
        if not isinstance(data.get(kind, []), list):
            raise ContractError(f"{path}: {kind} must be written [[{kind}]], one table per entry")
        for raw in data.get(kind, []):
            extra, missing = set(raw) - FIELDS[kind], REQUIRED[kind] - set(raw)
            if extra or missing:
                moved = " (a promise's judge is the check its id names: drop checks)" if "checks" in extra else ""
                raise ContractError(f"{path}: [[{kind}]] {raw.get('id', '?')}: unknown fields {sorted(extra)}, "
                                    f"missing {sorted(missing)}{moved}")
            wrong = [p for field, value in raw.items() if (p := _field_problem(field, value))]
            if wrong:
                raise ContractError(f"{path}: [[{kind}]] {raw.get('id', '?')}: {'; '.join(wrong)}")
            values = {k: tuple(v) if isinstance(v, list) else v for k, v in raw.items()}
            if "points" in values:
                values["points"] = float(values["points"])
            entry = Entry(kind=kind, **values)
            if entry.exercise != exercise:
                raise ContractError(f"{path}: [[{kind}]] {entry.id} is not of {exercise}: an id starts with its exercise's "
                                    f"name; move the entry to that exercise's promises.toml")
            entries.append(entry)
    return entries


def load(repo: Path = REPO) -> list[Entry]:
    """Every exercise's entries (its promise file, registry order): all promises first, then the shows entries, then the
    explained sentences."""
    entries = [e for x in registry.REGISTRY for e in load_file(repo / x.promises, x.name)]
    return [e for kind in KINDS for e in entries if e.kind == kind]


def normalize(text: str) -> str:
    """``text`` with every run of whitespace read as one space: how quotes and docstrings are compared."""
    return " ".join(text.split())


def docstrings(exercise: str, repo: Path = REPO) -> dict[str, str]:
    """{qualified name: normalized docstring} of the student-facing classes and functions of solutions/<exercise>.py.

    Student-facing: defined outside the solution markers (so the stub keeps
    it) and with a docstring. Section header lines are dropped.
    """
    source = (repo / "solutions" / registry.exercise(exercise).module).read_text(encoding="utf-8")
    hidden, inside = set(), False
    for number, line in enumerate(source.splitlines(), start=1):
        inside = inside or BEGIN in line
        if inside:
            hidden.add(number)
        inside = inside and END not in line
    found = {}

    def visit(node, prefix=""):
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.ClassDef)) and child.lineno not in hidden:
                doc = ast.get_docstring(child)
                if doc:
                    found[prefix + child.name] = normalize(_HEADER.sub("", doc))
                visit(child, f"{prefix}{child.name}.")

    visit(ast.parse(source))
    return found


def functions(path: Path, prefix: str) -> list[str]:
    """Names of the module-level functions of ``path`` that start with ``prefix``, in file order."""
    return list(_functions(str(path), prefix, path.stat().st_mtime_ns))


@functools.lru_cache(maxsize=64)
def _functions(path: str, prefix: str, _mtime_ns: int) -> tuple[str, ...]:
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    return tuple(node.name for node in tree.body if isinstance(node, ast.FunctionDef) and node.name.startswith(prefix))


def check_names(exercise: str, repo: Path = REPO) -> list[str]:
    """The hidden checks of an exercise: check_* functions of its check file (lab.toml's ``checks``)."""
    return functions(repo / registry.exercise(exercise).checks, "check_")


def public_tests(exercise: str, repo: Path = REPO) -> list[str]:
    """The public tests of an exercise: test_* functions of tests/test_<exercise>.py."""
    return functions(repo / "tests" / f"test_{exercise}.py", "test_")


def test_exists(exercise: str, name: str, repo: Path = REPO) -> bool:
    """Whether a test named in the table exists: ``name`` in tests/test_<exercise>.py, or ``file.py::name`` under tests/."""
    file, sep, function = name.rpartition("::")
    path = repo / "tests" / (file if sep else f"test_{exercise}.py")
    return path.is_file() and (function if sep else name) in functions(path, "test_")


def entry_problems(entries: list[Entry]) -> list[str]:
    """Ids well formed (<exercise>.<name>) and unique; promises with tests and boundaries, explanations with a reason."""
    found, seen = [], set()
    for e in entries:
        match = _ID.match(e.id)
        if not match or match.group(1) not in registry.EXERCISES:
            found.append(f"{e.id}: an id is <exercise>.<name> in lower case, with an exercise of lab.toml")
        if e.id in seen:
            found.append(f"{e.id}: the id is used twice")
        seen.add(e.id)
        if e.kind == "promise" and not e.tests:
            found.append(f"{e.id}: a promise names at least one public test that shows it (tests = [...])")
        if e.kind == "promise" and not e.boundaries:
            found.append(f"{e.id}: a promise lists its boundaries (boundaries = [...]): the inputs that decide it whatever "
                         f"the seed, each passed by its judge {e.check} to ctx.boundaries(name=...)")
        if e.kind == "promise" and e.states is not None and (wrong := promise_states.problem(list(e.states))):
            found.append(f"{e.id}: {wrong}")
        if e.kind in JUDGED and e.visibility not in VISIBILITIES:
            found.append(f"{e.id}: visibility must be one of {', '.join(VISIBILITIES)}, got {e.visibility!r}")
        if e.kind == "explained" and not e.why.strip():
            found.append(f"{e.id}: an explained sentence says why it promises nothing")
        if e.kind == "shows" and not e.shows.strip():
            found.append(f"{e.id}: a shows entry says what its check shows (shows = \"...\")")
    return found


def quote_problems(entries: list[Entry], docs: dict[str, dict[str, str]]) -> list[str]:
    """Every quote found exactly once in the docstring its entry names (``docs``: {exercise: docstrings()})."""
    found = []
    for e in [e for e in entries if e.kind != "shows"]:
        text = docs.get(e.exercise, {}).get(e.doc)
        if text is None:
            found.append(f"{e.id}: solutions/{e.exercise}.py has no student-facing docstring of {e.doc!r}")
            continue
        for quote in e.quotes:
            count = text.count(normalize(quote))
            if count != 1:
                where = "is no longer in" if count == 0 else f"occurs {count} times in"
                found.append(f"{e.id}: the quote {where} the docstring of {e.doc} (solutions/{e.exercise}.py): {quote!r}")
    return found


def uncovered(text: str, quotes: list[str]) -> list[str]:
    """The sentences of ``text`` (normalized) holding a word that no quote covers, each with those words."""
    covered = [False] * len(text)
    for quote in map(normalize, quotes):
        start = text.find(quote)
        while quote and start >= 0:
            covered[start : start + len(quote)] = [True] * len(quote)
            start = text.find(quote, start + 1)
    found, offset = [], 0
    for sentence in _SENTENCE_END.split(text):
        begin = text.index(sentence, offset)
        offset = begin + len(sentence)
        words = [m.group() for m in re.finditer(r"\w+", sentence) if not all(covered[begin + m.start() : begin + m.end()])]
        if words:
            found.append(f"{sentence!r} (not quoted: {' '.join(words)})")
    return found


def coverage_problems(entries: list[Entry], docs: dict[str, dict[str, str]]) -> list[str]:
    """Every sentence of every student-facing docstring quoted, wholly, by promises and explanations together."""
    found = []
    for exercise, by_name in docs.items():
        for name, text in by_name.items():
            quotes = [q for e in entries if e.exercise == exercise and e.doc == name for q in e.quotes]
            for sentence in uncovered(text, quotes):
                found.append(f"solutions/{exercise}.py, {name}: a sentence no entry quotes: {sentence}. Add it to the quote of "
                             "the [[promise]] whose check proves it, or an [[explained]] entry that says why it promises nothing")
    return found


def reference_problems(entries: list[Entry], checks: dict[str, list[str]], repo: Path = REPO) -> list[str]:
    """Every promise's and shows entry's judge and every public test an entry names exists (``checks``: {exercise:
    check_names()})."""
    found = []
    for e in entries:
        if e.kind in JUDGED and e.check not in checks.get(e.exercise, []):
            found.append(f"{e.id}: its judge {e.check} is no check of {registry.exercise(e.exercise).checks}: write it there, "
                         "or rename the entry after the check that proves it")
        for name in e.tests:
            if not test_exists(e.exercise, name, repo):
                found.append(f"{e.id}: no public test {name} in tests/ (test_{e.exercise}.py unless named file.py::test)")
    return found


def orphan_problems(entries: list[Entry], checks: dict[str, list[str]], tests: dict[str, list[str]]) -> list[str]:
    """Every check of an exercise is the judge of one entry (a promise, or a shows entry), and every public test shows
    one."""
    found = []
    for exercise in checks:
        mine = [e for e in entries if e.kind in JUDGED and e.exercise == exercise]
        judges = {e.check for e in mine}
        named_tests = {t for e in mine for t in e.tests}
        found += [f"{exercise}: the check {c} is the judge of no entry: add a [[promise]] with id = \"{exercise}."
                  f"{c.removeprefix('check_')}\" (its points, quote, tests, boundaries) to its promises.toml"
                  for c in checks[exercise] if c not in judges]
        found += [f"{exercise}: the public test {t} shows no promise: add it to the tests of the [[promise]] it shows"
                  for t in tests.get(exercise, []) if t not in named_tests]
    return found


def is_helper_module(module: str) -> bool:
    """Whether ``module`` holds helpers that checks call: a module of an exercise's folder, or grader.engine.checking."""
    return module.startswith("grader.exercises.") or module == "grader.engine.checking"


def check_boundaries(exercise: str, repo: Path = REPO) -> dict[str, set[str]]:
    """{check name: the boundary names it passes to ``ctx.boundaries(name=...)``} of an exercise's check file.

    A check's own body counts, and so do the helpers it calls, transitively:
    functions of its module and of the modules it imports from that hold
    checks' helpers: the exercise's own (``from grader.exercises.<exercise>.<module>
    import ...``) and :mod:`grader.engine.checking`.
    """
    path = repo / registry.exercise(exercise).checks
    return {name: set(names) - {_CROSSES_STATES} for name, names in _check_boundaries(str(path), path.stat().st_mtime_ns).items()}


def checks_crossing_states(exercise: str, repo: Path = REPO) -> set[str]:
    """The checks of ``exercise`` that ask ``ctx.states(...)`` (themselves or through a helper, as :func:`check_boundaries`
    follows them): the ones a promise's ``states`` field steers."""
    path = repo / registry.exercise(exercise).checks
    return {name for name, names in _check_boundaries(str(path), path.stat().st_mtime_ns).items() if _CROSSES_STATES in names}


#: Recorded among a function's boundary names where it calls ``ctx.states``: no keyword argument can be named so.
_CROSSES_STATES = "ctx.states()"


def _dict_keys(tree: ast.Module) -> dict[str, set[str]]:
    """{name: its string keys} of the module-level dict literals of ``tree`` (``ctx.boundaries(**NAME)`` passes them)."""
    return {target.id: {k.value for k in node.value.keys if isinstance(k, ast.Constant) and isinstance(k.value, str)}
            for node in tree.body if isinstance(node, ast.Assign) and isinstance(node.value, ast.Dict)
            for target in node.targets if isinstance(target, ast.Name)}


def _functions_of(tree: ast.Module, constants: dict[str, set[str]]) -> dict[str, tuple[set[str], set[str]]]:
    """{function name: (boundary names passed to .boundaries(...) in it, names of the functions it calls)}."""
    found = {}
    for node in tree.body:
        if isinstance(node, ast.FunctionDef):
            calls = [c for c in ast.walk(node) if isinstance(c, ast.Call)]
            names = set()
            for call in [c for c in calls if isinstance(c.func, ast.Attribute) and c.func.attr == "boundaries"]:
                for k in call.keywords:
                    if k.arg:
                        names.add(k.arg)
                    elif isinstance(k.value, ast.Name):  # **NAME of a module-level dict literal
                        names |= constants.get(k.value.id, set())
            if any(isinstance(c.func, ast.Attribute) and c.func.attr == "states" for c in calls):
                names.add(_CROSSES_STATES)
            found[node.name] = (names, {c.func.id for c in calls if isinstance(c.func, ast.Name)})
    return found


@functools.lru_cache(maxsize=16)
def _check_boundaries(path: str, _mtime_ns: int) -> dict[str, tuple[str, ...]]:
    tree = ast.parse(Path(path).read_text(encoding="utf-8"))
    trees = []  # the check-support modules it imports from, then the module itself (whose names win)
    for node in tree.body:
        if isinstance(node, ast.ImportFrom) and is_helper_module(node.module or ""):
            helper = Path(path).parents[3].joinpath(*node.module.split(".")).with_suffix(".py")  # parents[3]: the repository
            if helper.is_file():
                trees.append(ast.parse(helper.read_text(encoding="utf-8")))
    trees.append(tree)
    functions = {}
    for module in trees:
        functions.update(_functions_of(module, _dict_keys(module)))
    found = {}
    for name in [n for n in functions if n.startswith("check_")]:
        seen, todo, names = set(), [name], set()
        while todo:
            current = todo.pop()
            if current in seen or current not in functions:
                continue
            seen.add(current)
            names |= functions[current][0]
            todo += functions[current][1]
        found[name] = tuple(sorted(names))
    return found


def boundary_problems(entries: list[Entry], repo: Path = REPO) -> list[str]:
    """Every boundary a promise lists is passed to ``ctx.boundaries`` by its judge (so it is run), and a promise that
    names its states has a judge that asks for them (``ctx.states``)."""
    found, by_exercise = [], {x: check_boundaries(x, repo) for x in registry.EXERCISES}
    crossing = {x: checks_crossing_states(x, repo) for x in registry.EXERCISES}
    for e in [e for e in entries if e.kind == "promise"]:
        if e.states is not None and e.check not in crossing.get(e.exercise, set()):
            found.append(f"{e.id}: its states field would change nothing: its judge {e.check} does not ask "
                         "ctx.states(...); drop the field, or cross the judge with the states it names")
        ran = by_exercise.get(e.exercise, {}).get(e.check, set())
        for name in e.boundaries:
            if name not in ran:
                found.append(f"{e.id}: the boundary {name!r} is not run by its judge {e.check}: pass it to "
                             f"ctx.boundaries({name}=...) there, or take it off the promise's boundaries")
    return found


def problems(entries: list[Entry] | None = None, repo: Path = REPO) -> list[str]:
    """Everything wrong with the table against this repository's docstrings, checks and public tests ([] when sound)."""
    entries = load(repo) if entries is None else entries
    docs = {x: docstrings(x, repo) for x in registry.EXERCISES}
    checks = {x: check_names(x, repo) for x in registry.EXERCISES}
    tests = {x: public_tests(x, repo) for x in registry.EXERCISES}
    return (entry_problems(entries) + quote_problems(entries, docs) + coverage_problems(entries, docs)
            + reference_problems(entries, checks, repo) + orphan_problems(entries, checks, tests)
            + boundary_problems(entries, repo))
