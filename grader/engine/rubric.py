"""The rubric: points and visibility of every check (grader/engine/rubric.toml)."""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.engine.results import EXERCISES, VISIBILITIES
from grader.toml_file import read_toml

DEFAULT_RUBRIC = Path(__file__).with_name("rubric.toml")
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
    unknown = set(raw) - set(EXERCISES)
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
