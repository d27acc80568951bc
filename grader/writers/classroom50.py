"""Classroom 50's ``result.json`` (``classroom50/result/v1``) and what its runner needs.

The contract (foundation50/classroom50: ``schemas/result-v1.schema.json`` and
the runner's ``validate_result``): a closed set of top-level keys; ``score``
and ``max-score`` integers (never floats), ``score <= max-score``; one object
per test with ``test-name``, ``passed``, integer ``score`` and ``max-score``
(extra keys allowed there). The runner itself stamps ``owner``,
``assignment_type``, ``datetime``, ``graded_at`` and ``submitted_by``.

Here: one test per check that ran (a GPU check on a CPU runner is left out),
each carrying the grading's isolation level (``"isolation"``: jail, contained or weak),
totals equal to the sums, and the message of a check whose visibility is not
"visible" is left out too: a Classroom 50 Release, and so its result.json, is
readable by the student at once.
"""

from __future__ import annotations

from datetime import datetime, timezone

from grader.engine.results import GradeResult
from grader.writers.formatting import clean, cut, scored

SCHEMA = "classroom50/result/v1"
#: Where each identity field comes from: the environment the Classroom 50 runner gives an autograder.
ENV_FIELDS = {"classroom": "CLASSROOM", "assignment": "ASSIGNMENT", "owner": "OWNER", "submission": "SUBMISSION_TAG",
              "commit": "COMMIT_URL", "release": "RELEASE_URL", "review": "REVIEW_URL", "assignment_type": "ASSIGNMENT_TYPE"}
MESSAGE_CHARS = 500


def _points(value: float, what: str) -> int:
    if value != int(value):
        raise ValueError(f"Classroom 50 takes whole points; {what} has {value:g} (give the rubric integer points)")
    return int(value)


def classroom50_result(result: GradeResult, env: dict[str, str]) -> dict:
    """The ``result.json`` object for the Classroom 50 runner, identity fields from ``env``."""
    tests = []
    for ex in result.exercises:
        for c in scored(ex.checks):
            test = {"test-name": f"{ex.name}/{c.name}", "passed": c.passed,
                    "score": _points(c.score, f"{ex.name}/{c.name}"), "max-score": _points(c.max_score, f"{ex.name}/{c.name}"),
                    "isolation": result.isolation["level"]}
            if not c.passed and c.visibility == "visible" and c.message:
                test["message"] = cut(clean(c.message), MESSAGE_CHARS)
            tests.append(test)
    payload = {"schema": SCHEMA}
    payload.update({key: env.get(var, "") or "unknown" for key, var in ENV_FIELDS.items()})
    payload["assignment_type"] = env.get("ASSIGNMENT_TYPE") or "individual"
    payload["datetime"] = datetime.now(timezone.utc).strftime("%Y-%m-%dT%H:%M:%SZ")  # the runner overwrites it
    payload["score"] = sum(t["score"] for t in tests)
    payload["max-score"] = sum(t["max-score"] for t in tests)
    payload["tests"] = tests
    return payload


def classroom50_error(reason: str, env: dict[str, str]) -> dict:
    """A valid result for a grading that could not run: 0 of 0 and no tests (the runner's own error shape)."""
    payload = classroom50_result(GradeResult(exercises=[], seed=0, duration_s=0.0), env)
    payload["tests"] = [{"test-name": "grader", "passed": False, "score": 0, "max-score": 0,
                         "message": cut(clean(reason), MESSAGE_CHARS)}]
    return payload
