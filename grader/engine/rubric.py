"""The rubric: points and visibility of every check, and what the throughput figure is worth.

The shipped points live with the promises, in each exercise's promise file
(``grader/exercises/<exercise>/promises.toml``): each ``[[promise]]`` entry
(and each ``[[shows]]`` entry, 0 unless it says) has its ``points`` and,
optionally, its ``visibility``, and its id ``<exercise>.<name>`` names its
check, ``check_<name>``; the tokens exercise's file also holds the
``[throughput]`` table. A course changes them for a term in a file of its
own, passed with ``--rubric FILE``: ``[<exercise>]`` tables of ``name = N``
(or ``{points = N, visibility = "..."}``) lines, one per promise it changes,
and an optional ``[throughput]`` table. Each line replaces the shipped points
of that promise; every promise it does not name keeps its own.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader import registry
from grader.engine.results import EXERCISES, VISIBILITIES
from grader.paths import REPO
from grader.toml_file import read_toml

#: The kinds of entry of a promise file whose check has points (grader.tools.authoring.contract_table.JUDGED).
JUDGED = ("promise", "shows")
#: The rubric's one table that is not an exercise: what the grader's throughput figure is worth (ThroughputRule).
THROUGHPUT_TABLE = "throughput"
#: The exercise whose promise file holds the shipped [throughput] table, and which the throughput check joins.
THROUGHPUT_EXERCISE = "tokens"
#: The levels a throughput rule may name (grader.engine.throughput.LEVELS; not imported: the rubric stays light).
THROUGHPUT_LEVELS = ("per item", "__getitems__", "whole batches")
#: What every exercise of the shipped rubric is worth (grader/tests/test_rubric.py and ``check`` hold it to this).
POINTS_PER_EXERCISE = 20
_WHY = "it gives every check its points"


def promise_file(exercise: str, repo: Path = REPO) -> Path:
    """The promise file of ``exercise`` under ``repo``: its promises, each with its points."""
    return repo / registry.exercise(exercise).promises


class RubricError(ValueError):
    """A rubric file that cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class Entry:
    points: float
    visibility: str = "visible"


def points_of(path: Path, exercise: str) -> dict[str, Entry]:
    """{check name: Entry} of the promise file at ``path``: every [[promise]] (then every [[shows]]) entry in file order,
    named by its id without the exercise; RubricError on a bad one."""
    data = read_toml(path, _WHY, RubricError)
    found = {}
    for kind in JUDGED:
        entries = data.get(kind, [])
        if not isinstance(entries, list) or not all(isinstance(e, dict) for e in entries):
            raise RubricError(f"{path}: {kind} entries are written [[{kind}]], one table each")
        for raw in entries:
            exercise_of, _, name = str(raw.get("id", "")).partition(".")
            if exercise_of != exercise or not name:
                raise RubricError(f"{path}: [[{kind}]] {raw.get('id', '?')!r}: an id is {exercise}.<name>, its check "
                                  f"check_<name>")
            if kind == "promise" and "points" not in raw:
                raise RubricError(f"{path}: [[promise]] {raw['id']}: no points: give it `points = N`")
            entry = {"points": raw.get("points", 0), "visibility": raw.get("visibility", "visible")}
            found[name] = _entry(path, exercise, name, entry)
    if not found:
        raise RubricError(f"{path}: no [[promise]] entry: give every check of {exercise} its promise, with its points")
    return found


def shipped_points(exercise: str, repo: Path = REPO) -> dict[str, Entry]:
    """The points ``repo`` ships for the checks of ``exercise`` (:func:`points_of` its promise file)."""
    return points_of(promise_file(exercise, repo), exercise)


def load_rubric(override: Path | None = None, repo: Path = REPO) -> dict[str, dict[str, Entry]]:
    """{exercise: {check name: Entry}}: the shipped points of ``repo``, in the order of each promise file (the order of
    the reports), with the lines of the course's ``override`` file (if any) in place of the shipped ones; RubricError on
    a bad file."""
    rubric = {exercise: shipped_points(exercise, repo) for exercise in EXERCISES}
    if override is None:
        return rubric
    raw = read_toml(override, _WHY, RubricError)
    unknown = set(raw) - set(EXERCISES) - {THROUGHPUT_TABLE}
    if unknown:
        raise RubricError(f"rubric {override}: unknown exercise(s) {sorted(unknown)}; expected {list(EXERCISES)}")
    for exercise in EXERCISES:
        lines = raw.get(exercise, {})
        if not isinstance(lines, dict):
            raise RubricError(f"rubric {override}: [{exercise}] must be a table of `name = N` lines, one per promise, "
                              f"got {lines!r}")
        for name, value in lines.items():
            if name not in rubric[exercise]:
                raise RubricError(f"rubric {override}: {exercise}.{name} is no promise of {exercise}; its promises are "
                                  f"{', '.join(rubric[exercise])}")
            rubric[exercise][name] = _entry(override, exercise, name, value)
    return rubric


def _entry(path, exercise, name, value) -> Entry:
    where = f"rubric {path}: {exercise}.{name}"
    if isinstance(value, dict):
        extra = set(value) - {"points", "visibility"}
        if extra or "points" not in value:
            raise RubricError(f"{where}: expected {{points = N, visibility = \"...\"}}, got {value}")
        points, visibility = value["points"], value.get("visibility", "visible")
    else:
        points, visibility = value, "visible"
    if isinstance(points, bool) or not isinstance(points, (int, float)) or points < 0:
        raise RubricError(f"{where}: points must be a number >= 0, got {points!r}")
    if visibility not in VISIBILITIES:
        raise RubricError(f"{where}: visibility must be one of {VISIBILITIES}, got {visibility!r}")
    return Entry(float(points), visibility)


@dataclass(frozen=True)
class ThroughputRule:
    """What the throughput figure is worth: ``points`` (0: it informs only) when the median share of ``level``
    reaches ``threshold`` (a fraction of the raw gather's rate), as one more check of the tokens exercise."""

    points: float = 0.0
    level: str = "whole batches"
    threshold: float = 0.0
    visibility: str = "visible"

    @property
    def check_name(self) -> str:
        """The check's name in the reports, e.g. ``whole_batches_reach_20_percent_of_the_raw_gather``."""
        level = "_".join(self.level.replace("_", " ").split())
        return f"{level}_reach_{self.threshold * 100:g}_percent_of_the_raw_gather".replace(".", "_")


def load_throughput_rule(override: Path | None = None, repo: Path = REPO) -> ThroughputRule:
    """The ``[throughput]`` table of ``override`` if it has one, else the shipped one (the promise file of
    :data:`THROUGHPUT_EXERCISE`; absent: no points); RubricError on a bad table."""
    path = override
    raw = read_toml(override, _WHY, RubricError).get(THROUGHPUT_TABLE) if override is not None else None
    if raw is None and THROUGHPUT_EXERCISE not in EXERCISES:
        return ThroughputRule()
    if raw is None:
        path = promise_file(THROUGHPUT_EXERCISE, repo)
        raw = read_toml(path, _WHY, RubricError).get(THROUGHPUT_TABLE, {})
    where = f"rubric {path}: [{THROUGHPUT_TABLE}]"
    if not isinstance(raw, dict) or set(raw) - {"points", "level", "threshold", "visibility"}:
        raise RubricError(f"{where}: expected the keys points, level, threshold and visibility, got {raw}")
    rule = ThroughputRule(**raw)
    if isinstance(rule.points, bool) or not isinstance(rule.points, (int, float)) or rule.points < 0:
        raise RubricError(f"{where}: points must be a number >= 0, got {rule.points!r}")
    if rule.level not in THROUGHPUT_LEVELS:
        raise RubricError(f"{where}: level must be one of {THROUGHPUT_LEVELS}, got {rule.level!r}")
    if isinstance(rule.threshold, bool) or not isinstance(rule.threshold, (int, float)) or not 0 <= rule.threshold <= 1:
        raise RubricError(f"{where}: threshold is a share of the raw gather's rate, from 0 to 1 (0.2 for 20 %), "
                          f"got {rule.threshold!r}")
    if rule.points and not rule.threshold:
        raise RubricError(f"{where}: points = {rule.points:g} needs a threshold above 0 (see grader/docs/throughput.md "
                          "for the shares a right answer reaches)")
    if rule.visibility not in VISIBILITIES:
        raise RubricError(f"{where}: visibility must be one of {VISIBILITIES}, got {rule.visibility!r}")
    return ThroughputRule(float(rule.points), rule.level, float(rule.threshold), rule.visibility)
