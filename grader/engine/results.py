"""The grader's result model: one object that every writer renders.

The grader builds a single :class:`GradeResult` (exercises -> checks) and hands
it to the functions in :mod:`grader.writers`, which turn it into console text,
JSON, Markdown, Classroom 50's result, Gradescope's ``results.json``, JUnit
XML and gradebook rows.

Contract
--------
* These are plain dataclasses. The only logic is summing scores and
  (de)serialising; nothing here decides whether a check passed.
* Scores are floats and are never rounded in the data; writers round to two
  decimals when they display a number.
* ``status`` must be one of :data:`STATUSES` and ``visibility`` one of
  :data:`VISIBILITIES`; anything else raises :class:`ValueError` naming the bad
  value, at construction time and in :meth:`GradeResult.from_dict`.
* ``confirmation`` must be one of :data:`CONFIRMATIONS` (see
  :mod:`grader.engine.confirm`: whether a verdict the machine's load could
  cause was confirmed alone); the dict carries it only when it is not "".
  A check that passed on confirmation is a plain ``"passed"``, so every
  writer shows it as a pass.
* ``GradeResult.from_dict(r.to_dict()) == r`` for every valid result.
* Text is cleaned when a result is built (:func:`grader.text.clean_text`):
  no control characters, no ANSI sequences, no line a CI runner reads as a
  command. Student text reaches messages, output and flags, and every writer
  and console shows these fields.
* Text is bounded when a result is built, whatever a submission sent: each
  field is cut to its limit (:data:`TEXT_LIMITS`, by
  :func:`~grader.shared.messages.cut_text`, with a note saying how much
  was cut), and at most :data:`MAX_INTEGRITY_FLAGS` flags are kept. A
  writer that must fit a size (the JSON report, the feedback Markdown)
  cuts further with :meth:`GradeResult.with_text_limit`.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from grader import registry
from grader.isolation import LEVELS, Isolation
from grader.shared.messages import cut_text
from grader.text import clean_text

__all__ = [
    "STATUSES",
    "VISIBILITIES",
    "EXERCISES",
    "SCHEMA_VERSION",
    "CONFIRMATIONS",
    "CheckResult",
    "ExerciseResult",
    "GradeResult",
]

#: Every status a check can end in. Only ``"passed"`` counts as passing.
STATUSES = ("passed", "failed", "error", "timeout", "skipped")

#: What a check's ``confirmation`` may be (grader.engine.confirm): "" (none needed), "pending", "confirmed", "passed".
CONFIRMATIONS = ("", "pending", "confirmed", "passed")

#: Gradescope's visibility values (also used by our own writers).
VISIBILITIES = ("visible", "hidden", "after_due_date", "after_published")

#: The lab's exercises, in the order they are graded and reported (from lab.toml).
EXERCISES = registry.EXERCISES

#: Version of the dict/JSON layout produced by :meth:`GradeResult.to_dict`.
SCHEMA_VERSION = 2

#: Longest text of each free-text field, in characters (writers may cut further).
TEXT_LIMITS = {"message": 4000, "output": 2000, "description": 1000, "note": 2000, "flag": 500}
#: Most integrity flags a result keeps.
MAX_INTEGRITY_FLAGS = 40

#: The isolation of a result that does not say (written before schema version 2).
UNKNOWN_ISOLATION = {"level": "weak", "reason": "not recorded", "layers": {}}


def _bounded(text: Any, field: str, limit: int | None = None) -> str:
    """``text`` cut to the limit of ``field`` (or ``limit`` if smaller), then cleaned."""
    limit = TEXT_LIMITS[field] if limit is None else min(limit, TEXT_LIMITS[field])
    return clean_text(cut_text("" if text is None else str(text), limit))


def _plain_figure(value: Any, depth: int = 0) -> Any:
    """The throughput figure with its text cleaned and cut, and its shape bounded (a reason can quote student text)."""
    if isinstance(value, dict) and depth < 4:
        return {str(k)[:40]: _plain_figure(v, depth + 1) for k, v in list(value.items())[:20]}
    if isinstance(value, (bool, int, float)) or value is None:
        return value
    return _bounded(value, "flag")


def _check_choice(kind: str, value: Any, allowed: tuple[str, ...]) -> None:
    if value not in allowed:
        raise ValueError(f"invalid {kind} {value!r}; expected one of {', '.join(allowed)}")


@dataclass
class CheckResult:
    """The outcome of one check of one exercise.

    ``score`` is the points awarded (0 <= score <= max_score is expected but not
    enforced, so that a grader may award partial or bonus credit);
    ``message`` is the feedback for the student ("" when passed);
    ``description`` is one sentence saying what the check proves;
    ``output`` is the student's code stdout/stderr, already cut short;
    ``confirmation`` is one of :data:`CONFIRMATIONS`.
    """

    name: str
    exercise: str
    status: str
    score: float
    max_score: float
    message: str = ""
    description: str = ""
    visibility: str = "visible"
    output: str = ""
    duration_s: float = 0.0
    confirmation: str = ""

    def __post_init__(self) -> None:
        _check_choice("status", self.status, STATUSES)
        _check_choice("confirmation", self.confirmation, CONFIRMATIONS)
        _check_choice("visibility", self.visibility, VISIBILITIES)
        self.message, self.output, self.description = (
            _bounded(self.message, "message"), _bounded(self.output, "output"), _bounded(self.description, "description"))
        self.score = float(self.score)
        self.max_score = float(self.max_score)
        self.duration_s = float(self.duration_s)

    @property
    def passed(self) -> bool:
        """True only for status ``"passed"``."""
        return self.status == "passed"

    def to_dict(self) -> dict[str, Any]:
        data = {
            "name": self.name,
            "exercise": self.exercise,
            "status": self.status,
            "score": self.score,
            "max_score": self.max_score,
            "message": self.message,
            "description": self.description,
            "visibility": self.visibility,
            "output": self.output,
            "duration_s": self.duration_s,
        }
        if self.confirmation:
            data["confirmation"] = self.confirmation
        return data

    @classmethod
    def from_dict(cls, data: dict[str, Any], exercise: str | None = None) -> "CheckResult":
        """Build from :meth:`to_dict` output; ``exercise`` fills a missing key."""
        return cls(
            name=data["name"],
            exercise=data.get("exercise", exercise if exercise is not None else ""),
            status=data["status"],
            score=data["score"],
            max_score=data["max_score"],
            message=data.get("message", ""),
            description=data.get("description", ""),
            visibility=data.get("visibility", "visible"),
            output=data.get("output", ""),
            duration_s=data.get("duration_s", 0.0),
            confirmation=data.get("confirmation", ""),
        )


@dataclass
class ExerciseResult:
    """All checks of one exercise. ``note`` explains a whole-exercise outcome,
    e.g. ``"collate.py is missing"`` or ``"not implemented yet"``."""

    name: str
    checks: list[CheckResult]
    note: str = ""

    def __post_init__(self) -> None:
        self.note = _bounded(self.note, "note")

    @property
    def score(self) -> float:
        """Sum of the checks' awarded points."""
        return float(sum(c.score for c in self.checks))

    @property
    def max_score(self) -> float:
        """Sum of the checks' maximum points."""
        return float(sum(c.max_score for c in self.checks))

    @property
    def duration_s(self) -> float:
        return float(sum(c.duration_s for c in self.checks))

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "score": self.score,
            "max_score": self.max_score,
            "note": self.note,
            "checks": [c.to_dict() for c in self.checks],
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "ExerciseResult":
        """Build from :meth:`to_dict` output; stored sums are ignored (recomputed)."""
        name = data["name"]
        return cls(
            name=name,
            checks=[CheckResult.from_dict(c, exercise=name) for c in data.get("checks", [])],
            note=data.get("note", ""),
        )


@dataclass
class GradeResult:
    """A whole grading run of one submission.

    ``started_at`` is an ISO 8601 UTC timestamp (e.g. ``2025-01-31T12:00:00+00:00``),
    ``integrity_flags`` are notes for the instructor (never a deduction by
    themselves), ``gpu`` names the accelerator used (``"none"`` when CPU only),
    ``isolation`` says how the student's code was isolated:
    ``{"level": "jail" | "contained" | "weak", "reason": str, "layers": {layer: what it applied}}``
    (see :mod:`grader.isolation`).
    ``phases`` holds the seconds of the grading's phases besides the checks
    (``sandbox_start``, ``preflight/<exercise>``), for ``python -m grader bench``.
    ``timeout_scale`` is the factor applied to every time limit of the
    student's code (1.0 unless ``grade --timeout-scale`` said otherwise).
    ``provenance`` says where a class grading's files came from:
    ``{"commit", "server_time", "source"}`` from a server record (see
    :mod:`grader.tools.intake.deadline_record`), or ``{}``.
    ``seed_secret`` is True when the seed is a student's secret seed of record
    (derived from the course key, :mod:`grader.engine.seeds`): the writers a
    student reads leave it out. ``seed_from_repository`` is the repository
    name (``owner/name``) when the seed is the push feedback's public seed
    derived from it (:func:`grader.engine.seeds.feedback_seed`), else "": the
    writers then tell the student that the same files get the same inputs
    and that the grade of record uses others. ``grader_sha256`` names the grader that graded
    (:func:`grader.engine.provenance.grader_hash`), ``environment`` what it ran
    on (:func:`grader.engine.provenance.environment`). ``throughput`` is the
    grader's own throughput figure (:mod:`grader.engine.throughput`): ``{}``
    when it was not asked for, ``{"status": "not measured", "reason"}``, or
    ``{"status": "measured", "levels": {level: {"share", "low", "high",
    "samples_per_s"}}, ...}`` with each level's median share of the raw gather.
    """

    exercises: list[ExerciseResult]
    seed: int
    duration_s: float
    submission: str = ""
    started_at: str = ""
    grader_version: str = ""
    integrity_flags: list[str] = field(default_factory=list)
    gpu: str = ""
    isolation: dict[str, str] = field(default_factory=lambda: dict(UNKNOWN_ISOLATION))
    phases: dict[str, float] = field(default_factory=dict)
    provenance: dict[str, str] = field(default_factory=dict)
    timeout_scale: float = 1.0
    seed_secret: bool = False
    seed_from_repository: str = ""
    grader_sha256: str = ""
    environment: dict[str, str] = field(default_factory=dict)
    throughput: dict[str, Any] = field(default_factory=dict)

    def __post_init__(self) -> None:
        if isinstance(self.seed, bool) or not isinstance(self.seed, int):
            raise ValueError(f"invalid seed {self.seed!r}; expected an int")
        self.duration_s = float(self.duration_s)
        self.integrity_flags = [_bounded(flag, "flag") for flag in self.integrity_flags[:MAX_INTEGRITY_FLAGS]]
        self.submission = clean_text(self.submission)
        self.seed_secret = bool(self.seed_secret)
        self.seed_from_repository = clean_text(cut_text(str(self.seed_from_repository), 200))
        if self.seed_secret and self.seed_from_repository:
            raise ValueError("a seed is either a secret seed of record or the public seed of a repository, not both")
        self.environment = {str(k)[:40]: clean_text(cut_text(str(v), 200)) for k, v in list(self.environment.items())[:20]}
        self.throughput = _plain_figure(self.throughput) if isinstance(self.throughput, dict) else {}
        try:
            self.isolation = Isolation.from_dict(self.isolation).to_dict()
        except (KeyError, TypeError, ValueError, AttributeError) as exc:
            raise ValueError(f"invalid isolation {self.isolation!r}: {exc}; expected a level ({', '.join(LEVELS)}), "
                             "a reason and the layers that held") from None


    @property
    def score(self) -> float:
        """Sum of all exercises' scores."""
        return float(sum(e.score for e in self.exercises))

    @property
    def max_score(self) -> float:
        """Sum of all exercises' maximum scores."""
        return float(sum(e.max_score for e in self.exercises))

    def with_text_limit(self, limit: int) -> "GradeResult":
        """A copy whose messages, outputs, notes and flags are cut to ``limit`` characters each
        (for a writer that must fit a size; scores, statuses and everything else unchanged)."""
        exercises = [ExerciseResult(
            name=e.name, note=_bounded(e.note, "note", limit),
            checks=[dataclasses.replace(c, message=_bounded(c.message, "message", limit),
                                        output=_bounded(c.output, "output", limit)) for c in e.checks])
            for e in self.exercises]
        return dataclasses.replace(self, exercises=exercises,
                                   integrity_flags=[_bounded(f, "flag", limit) for f in self.integrity_flags])

    def scores_only(self) -> "GradeResult":
        """A copy without check messages, outputs and exercise notes: what the class views
        (gradebook, summary) need, a few kilobytes whatever the report held."""
        return dataclasses.replace(self.with_text_limit(0), integrity_flags=list(self.integrity_flags))

    def all_checks(self) -> list[CheckResult]:
        """All checks, in exercise order."""
        return [c for e in self.exercises for c in e.checks]

    def confirmations(self, which: str) -> list[CheckResult]:
        """The checks whose ``confirmation`` is ``which`` ("pending", "confirmed" or "passed")."""
        return [c for c in self.all_checks() if c.confirmation == which]

    def exercise(self, name: str) -> ExerciseResult | None:
        """The exercise called ``name``, or None."""
        return next((e for e in self.exercises if e.name == name), None)

    def to_dict(self) -> dict[str, Any]:
        """A JSON-ready dict; see the module docstring of :mod:`grader.writers`
        (``to_json``) for the guaranteed shape. Extra keys may be added but the
        documented ones never change meaning."""
        return {
            "schema_version": SCHEMA_VERSION,
            "score": self.score,
            "max_score": self.max_score,
            "seed": self.seed,
            "duration_s": self.duration_s,
            "submission": self.submission,
            "started_at": self.started_at,
            "grader_version": self.grader_version,
            "gpu": self.gpu,
            "exercises": [e.to_dict() for e in self.exercises],
            "integrity": {"flags": list(self.integrity_flags)},
            "isolation": dict(self.isolation),
            "phases": dict(self.phases),
            "provenance": dict(self.provenance),
            "timeout_scale": self.timeout_scale,
            "seed_secret": self.seed_secret,
            "seed_from_repository": self.seed_from_repository,
            "grader_sha256": self.grader_sha256,
            "environment": dict(self.environment),
            "throughput": dict(self.throughput),
        }

    @classmethod
    def from_dict(cls, data: dict[str, Any]) -> "GradeResult":
        """Inverse of :meth:`to_dict`. Stored ``score``/``max_score`` are ignored
        because they are derived from the checks."""
        return cls(
            exercises=[ExerciseResult.from_dict(e) for e in data.get("exercises", [])],
            seed=data["seed"],
            duration_s=data.get("duration_s", 0.0),
            submission=data.get("submission", ""),
            started_at=data.get("started_at", ""),
            grader_version=data.get("grader_version", ""),
            integrity_flags=list(data.get("integrity", {}).get("flags", [])),
            gpu=data.get("gpu", ""),
            isolation=dict(data.get("isolation", UNKNOWN_ISOLATION)),
            phases=dict(data.get("phases", {})),
            provenance=dict(data.get("provenance", {})),
            timeout_scale=float(data.get("timeout_scale", 1.0)),
            seed_secret=bool(data.get("seed_secret", False)),
            seed_from_repository=str(data.get("seed_from_repository", "")),
            grader_sha256=str(data.get("grader_sha256", "")),
            environment=dict(data.get("environment", {})),
            throughput=dict(data.get("throughput", {})),
        )
