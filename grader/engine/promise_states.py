"""The states each check's promises speak for, read from the ``states`` fields of the exercise's promise file.

A ``[[promise]]`` of ``grader/exercises/<exercise>/promises.toml`` may say
``states = ["after_a_pass", ...]``: the states of the dataset, sampler or
iterable it is about (grader/shared/states.py: LATER_STATES), in which its
judge (the check its id names) meets what that object yields besides a fresh
one. Without the field a promise speaks for all of them; ``states = []`` for
a fresh object only. The judge asks for them with
:meth:`grader.engine.checking.Context.states`, so narrowing one promise's
states is one line of its entry.
"""

from __future__ import annotations

import functools
from pathlib import Path

from grader import registry
from grader.paths import REPO
from grader.shared.states import LATER_STATES
from grader.toml_file import read_toml

#: The field of a [[promise]] entry that names its states.
FIELD = "states"


class PromiseStatesError(ValueError):
    """A ``states`` field that cannot be used; the message says what to fix."""


def problem(value) -> str:
    """What is wrong with the value of a ``states`` field ("" when nothing is)."""
    if not isinstance(value, list) or not all(isinstance(s, str) for s in value):
        return f"{FIELD} must be a list of state names, one of {', '.join(LATER_STATES)} each"
    unknown = [s for s in value if s not in LATER_STATES]
    if unknown:
        fresh = " (a fresh object is every promise's: leave it out)" if "fresh" in unknown else ""
        return f"unknown states {unknown}{fresh}; the states are {', '.join(LATER_STATES)}"
    if len(set(value)) != len(value):
        return f"{FIELD} names a state twice"
    return ""


def states_by_check(exercise: str, repo: Path = REPO) -> dict[str, tuple[str, ...]]:
    """{check function name: the later states its promise speaks for, in LATER_STATES order} for ``exercise``.

    A check that judges no promise is absent (the caller's default applies); a bad field raises PromiseStatesError."""
    path = repo / registry.exercise(exercise).promises
    return _states_by_check(str(path), exercise, path.stat().st_mtime_ns)


@functools.lru_cache(maxsize=32)
def _states_by_check(path: str, exercise: str, _mtime_ns: int) -> dict[str, tuple[str, ...]]:
    found: dict[str, set[str]] = {}
    for entry in read_toml(Path(path), "it names the states each promise speaks for", PromiseStatesError).get("promise", []):
        value = entry.get(FIELD, list(LATER_STATES))
        if wrong := problem(value):
            raise PromiseStatesError(f"{path}: [[promise]] {entry.get('id', '?')}: {wrong}")
        found.setdefault(f"check_{str(entry.get('id', '')).partition('.')[2]}", set()).update(value)
    return {check: tuple(s for s in LATER_STATES if s in states) for check, states in found.items()}
