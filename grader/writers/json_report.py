"""The lossless report: ``GradeResult.to_dict()`` as JSON (the grade of record, read back by batch)."""

from __future__ import annotations

import json

from grader.engine.results import GradeResult
from grader.writers.formatting import JSON_REPORT_BYTES, fit


def to_json(result: GradeResult) -> str:
    """``result.to_dict()`` as JSON (indent 2, key order kept, UTF-8 text kept).

    Guaranteed shape (extra keys may appear)::

        {"score": float, "max_score": float, "seed": int, "duration_s": float,
         "exercises": [{"name": str, "score": float, "max_score": float,
                        "checks": [{"name": str, "status": <one of STATUSES>,
                                    "score": float, "max_score": float,
                                    "message": str}]}],
         "integrity": {"flags": [str, ...]},
         "isolation": {"level": "jail" | "weak", "reason": str},
         "timeout_scale": float}

    ``GradeResult.from_dict(json.loads(to_json(r))) == r`` for every result
    whose JSON fits in :data:`~grader.writers.formatting.JSON_REPORT_BYTES`; a
    larger one has its free text cut until it fits (:func:`~grader.writers.formatting.fit`).
    """
    return fit(_render, result, JSON_REPORT_BYTES)


def _render(result: GradeResult) -> str:
    return json.dumps(result.to_dict(), indent=2, sort_keys=False, ensure_ascii=False) + "\n"
