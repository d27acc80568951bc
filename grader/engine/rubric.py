"""The rubric: points and visibility of every check (grader/engine/rubric.toml)."""

from __future__ import annotations

import tomllib
from dataclasses import dataclass
from pathlib import Path

from grader.engine.results import EXERCISES, VISIBILITIES

DEFAULT_RUBRIC = Path(__file__).with_name("rubric.toml")


class RubricError(ValueError):
    """A rubric file that cannot be used; the message says what to fix."""


@dataclass(frozen=True)
class Entry:
    points: float
    visibility: str = "visible"


def load_rubric(path: Path = DEFAULT_RUBRIC) -> dict[str, dict[str, Entry]]:
    """{exercise: {check name: Entry}} in file order; raises RubricError on a bad file."""
    try:
        raw = tomllib.loads(Path(path).read_text(encoding="utf-8"))
    except FileNotFoundError:
        raise RubricError(f"rubric file {path} does not exist") from None
    except (tomllib.TOMLDecodeError, UnicodeDecodeError) as exc:
        raise RubricError(f"rubric file {path} is not valid TOML: {exc}") from None
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
