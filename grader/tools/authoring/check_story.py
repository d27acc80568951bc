"""A check's whole story in one place: ``python -m grader explain CHECK``.

A check's promise is one entry of its exercise's ``promises.toml``; the rest
of its story sits where it runs (the check's code, the probe, the public
tests, the corpus, lab.toml). This module gathers it, read from those files,
never written twice:

- the promise it judges: its entry's id and the docstring sentences it quotes;
- the points and visibility (the entry's, or a course's ``--rubric`` line);
- what the check says it proves and does not (its own docstring);
- the boundary inputs it runs in every grading, whatever the seed (``ctx.boundaries``);
- the states of its object it meets besides a fresh one, where it asks (``ctx.states``);
- the probes it asks the jail to run (``exercise:function`` names in its code
  and in the checks' helpers it calls: its exercise's folder and ``grader/engine/checking.py``);
- the start methods its real DataLoader workers use, or "in process";
- where it runs only (GPU or not);
- its public twins (the entry's tests);
- the corpus's wrong answers that break its promise (their ``# breaks:`` lines);
- where in LAB.md to look (lab.toml).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import textwrap
from dataclasses import dataclass

from grader import registry
from grader.engine import promise_states
from grader.engine.checking import FORKING_METHODS, START_METHODS
from grader.engine.rubric import load_rubric
from grader.tools.authoring import contract_table, corpus

_METHOD_TABLES = {"START_METHODS": START_METHODS, "FORKING_METHODS": FORKING_METHODS}


class UnknownCheck(LookupError):
    """No check has that name; the message lists the close ones."""


@dataclass(frozen=True)
class Story:
    exercise: str
    name: str  # without the check_ prefix, as the rubric and the reports name it
    proves: str
    points: float
    visibility: str
    promises: tuple[contract_table.Entry, ...]
    boundaries: tuple[str, ...]
    states: tuple[str, ...] | None  # None: it judges fresh objects only (it never asks ctx.states)
    probes: tuple[str, ...]
    start_methods: tuple[str, ...]
    runs_only: str
    public_twins: tuple[str, ...]
    must_fail: tuple[str, ...]
    where_to_look: str


def _module(exercise: str):
    return importlib.import_module(registry.exercise(exercise).checks.removesuffix(".py").replace("/", "."))


def all_checks() -> list[tuple[str, str]]:
    """(exercise, check name without ``check_``) for every check, in registry and file order."""
    return [(exercise, name[len("check_"):]) for exercise in registry.EXERCISES
            for name in contract_table.check_names(exercise)]


def resolve(text: str) -> tuple[str, str]:
    """(exercise, name) for ``text``: ``exercise.name``, ``name`` or ``check_name``; UnknownCheck otherwise."""
    exercise, _, name = text.rpartition(".")
    name = name.removeprefix("check_")
    found = [(e, n) for e, n in all_checks() if n == name and exercise in ("", e)]
    if len(found) == 1:
        return found[0]
    if len(found) > 1:
        raise UnknownCheck(f"{text!r} names a check of several exercises: say which, e.g. {found[0][0]}.{name}")
    close = [f"{e}.{n}" for e, n in all_checks() if name and (name in n or n in name)][:8]
    hint = f"; did you mean {', '.join(close)}?" if close else "; python -m grader explain --list lists them"
    raise UnknownCheck(f"no check named {text!r}{hint}")


def _calls_and_strings(function) -> tuple[set[str], set[str], str]:
    """Names the function calls or mentions, the string constants in it, and its source."""
    source = textwrap.dedent(inspect.getsource(function))
    names, strings = set(), set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Name):
            names.add(node.id)
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            strings.add(node.value)
    return names, strings, source


def _reach(module, check) -> tuple[set[str], set[str], str]:
    """Names and strings of ``check`` and of every checks' helper it calls (contract_table.is_helper_module), transitively."""
    seen, todo, names, strings, sources = set(), [check], set(), set(), []
    while todo:
        function = todo.pop()
        if function in seen:
            continue
        seen.add(function)
        n, s, src = _calls_and_strings(function)
        names |= n
        strings |= s
        sources.append(src)
        for name in n:
            helper = getattr(module, name, None)
            if inspect.isfunction(helper) and contract_table.is_helper_module(helper.__module__):
                todo.append(helper)
    return names, strings, "\n".join(sources)


def _start_methods(names: set[str], strings: set[str], source: str) -> tuple[str, ...]:
    methods = {m for table, values in _METHOD_TABLES.items() if table in names for m in values}
    methods |= {s for s in strings if s in START_METHODS and f'!= "{s}"' not in source}
    methods -= {m for m in START_METHODS if f'!= "{m}"' in source}
    return tuple(m for m in START_METHODS if m in methods)


def story(text: str) -> Story:
    """The story of the check ``text`` names (see :func:`resolve`)."""
    exercise, name = resolve(text)
    module = _module(exercise)
    check = getattr(module, f"check_{name}")
    names, strings, source = _reach(module, check)
    promises = tuple(e for e in contract_table.load() if e.kind in contract_table.JUDGED and e.exercise == exercise
                     and e.check == f"check_{name}")
    ids = {e.id for e in promises}
    rubric = load_rubric().get(exercise, {}).get(name)
    where, reason = getattr(check, "runs_only", (None, ""))
    entry = registry.exercise(exercise)
    return Story(
        exercise=exercise, name=name,
        proves=inspect.getdoc(check) or "(the check has no docstring)",
        points=rubric.points if rubric else 0.0, visibility=rubric.visibility if rubric else "not in the rubric",
        promises=promises,
        boundaries=tuple(sorted(contract_table.check_boundaries(exercise).get(f"check_{name}", ()))),
        states=(promise_states.states_by_check(exercise).get(f"check_{name}", promise_states.LATER_STATES)
                if f"check_{name}" in contract_table.checks_crossing_states(exercise) else None),
        probes=tuple(sorted(s for s in strings if s.startswith(f"{exercise}:") and s[len(exercise) + 1:].isidentifier())),
        start_methods=_start_methods(names, strings, source),
        runs_only=f"{where}: {reason}" if where else "",
        public_twins=tuple(dict.fromkeys(t for e in promises for t in e.tests)),
        must_fail=tuple(e.id for e in corpus.entries("wrong") if e.exercise == exercise and ids & set(e.breaks)),
        where_to_look=f"{entry.pointer}; {entry.hint}",
    )


def render(s: Story) -> str:
    """The story as plain text, one fact a paragraph."""
    public = registry.exercise(s.exercise)
    twin_files = [t if "::" in t else f"tests/test_{s.exercise}.py::{t}" for t in s.public_twins]
    lines = [f"{s.exercise}.{s.name}: {s.points:g} point(s), {s.visibility}",
             "", "what it proves (its docstring):", textwrap.indent(s.proves, "  "),
             "", f"the promise ({public.promises}):"]
    for e in s.promises:
        lines += [f"  {e.id}" + (f", which shows without proving a sentence: {e.shows}" if e.kind == "shows" else ", quoting:")]
        lines += [f"    \"{contract_table.normalize(quote)}\"" for quote in e.quotes]
    lines += [] if s.promises else ["  (no entry of the promise file names this check)"]
    lines += ["", "boundary inputs it runs in every grading, whatever the seed: " + (", ".join(s.boundaries) or "none of its own")]
    if s.states is not None:
        lines += ["states of its object it meets besides a fresh one (its promise's states field): "
                  + (", ".join(s.states) or "none")]
    lines += [f"the probe it runs in the jail (grader/exercises/{s.exercise}/probe.py): "
              + (", ".join(s.probes) or "none (judged from other checks' data)")]
    lines += [f"start methods of its real DataLoader workers: {', '.join(s.start_methods) or 'none (in process)'}"]
    if s.runs_only:
        lines += [f"runs only where {s.runs_only}"]
    lines += ["", f"its public twin(s), what a student runs ({', '.join(public.entry_points)}):"]
    lines += [f"  {t}" for t in twin_files] or ["  (none)"]
    lines += ["", "corpus answers that break its promise (grader/exercises/<exercise>/corpus/wrong; each fails a check of that promise, no other's):"]
    lines += [f"  {a}" for a in s.must_fail] or ["  (none)"]
    lines += ["", f"where to look: {s.where_to_look}"]
    return "\n".join(lines) + "\n"
