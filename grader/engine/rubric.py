"""The rubric: points and visibility of every check, and what the throughput figure is worth.

The shipped points live with the promises, in each exercise's promise file
(``grader/exercises/<exercise>/promises.toml``, its ``[points]`` table; the
tokens exercise's file also holds the ``[throughput]`` table). A course
changes them for a term in a file of its own, passed with ``--rubric FILE``:
``[<exercise>]`` tables of ``check = N`` (or ``{points = N, visibility =
"..."}``) lines and an optional ``[throughput]`` table. Each line replaces the
shipped entry of that check; every check it does not name keeps its points.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader import registry
from grader.engine.results import EXERCISES, VISIBILITIES
from grader.paths import REPO
from grader.toml_file import read_toml

#: The table of a promise file that gives its exercise's checks their points.
POINTS_TABLE = "points"
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
    """The promise file of ``exercise`` under ``repo``: its promises and its checks' [points]."""
    return repo / registry.exercise(exercise).promises


class RubricError(ValueError):
    """A rubric file that cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class Entry:
    points: float
    visibility: str = "visible"


def points_of(path: Path, exercise: str) -> dict[str, Entry]:
    """{check name: Entry} of the [points] table of the promise file at ``path``, in file order; RubricError on a bad one."""
    table = read_toml(path, _WHY, RubricError).get(POINTS_TABLE)
    if not isinstance(table, dict):
        raise RubricError(f"{path}: no [{POINTS_TABLE}] table: give every check of {exercise} its points there")
    return {name: _entry(path, exercise, name, value) for name, value in table.items()}


def shipped_points(exercise: str, repo: Path = REPO) -> dict[str, Entry]:
    """The points ``repo`` ships for the checks of ``exercise`` (:func:`points_of` its promise file)."""
    return points_of(promise_file(exercise, repo), exercise)


def load_rubric(override: Path | None = None, repo: Path = REPO) -> dict[str, dict[str, Entry]]:
    """{exercise: {check name: Entry}}: the shipped points of ``repo``, each check in its file's order, with the
    lines of the course's ``override`` file (if any) in place of the shipped ones; RubricError on a bad file."""
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
            raise RubricError(f"rubric {override}: [{exercise}] must be a table of `check = N` lines, got {lines!r}")
        for name, value in lines.items():
            if name not in rubric[exercise]:
                raise RubricError(f"rubric {override}: {exercise}.{name} is no check of {exercise}; its checks are "
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
