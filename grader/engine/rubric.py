"""The rubric: points and visibility of every check (grader/engine/rubric.toml), and what the throughput figure is worth."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.engine.results import EXERCISES, VISIBILITIES
from grader.toml_file import read_toml

DEFAULT_RUBRIC = Path(__file__).with_name("rubric.toml")
#: The rubric's one table that is not an exercise: what the grader's throughput figure is worth (ThroughputRule).
THROUGHPUT_TABLE = "throughput"
#: The levels a throughput rule may name (grader.engine.throughput.LEVELS; not imported: the rubric stays light).
THROUGHPUT_LEVELS = ("per item", "__getitems__", "whole batches")
#: What every exercise of the shipped rubric is worth (grader/tests/test_rubric.py and ``check`` hold it to this).
POINTS_PER_EXERCISE = 20


class RubricError(ValueError):
    """A rubric file that cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class Entry:
    points: float
    visibility: str = "visible"


def load_rubric(path: Path = DEFAULT_RUBRIC) -> dict[str, dict[str, Entry]]:
    """{exercise: {check name: Entry}} in file order; raises RubricError on a bad file."""
    raw = read_toml(path, "the rubric gives every check its points", RubricError)
    unknown = set(raw) - set(EXERCISES) - {THROUGHPUT_TABLE}
    if unknown:
        raise RubricError(f"rubric {path}: unknown exercise(s) {sorted(unknown)}; expected {list(EXERCISES)}")
    rubric = {}
    for exercise in EXERCISES:
        rubric[exercise] = {name: _entry(path, exercise, name, value) for name, value in raw.get(exercise, {}).items()}
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


def load_throughput_rule(path: Path = DEFAULT_RUBRIC) -> ThroughputRule:
    """The ``[throughput]`` table of the rubric at ``path`` (absent: no points); raises RubricError on a bad table."""
    raw = read_toml(path, "the rubric gives every check its points", RubricError).get(THROUGHPUT_TABLE, {})
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
