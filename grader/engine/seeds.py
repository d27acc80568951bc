"""Secret per-student seeds: the seed of record derived from a course key and the student's id (grader/docs/DESIGN.md, principle 8).

``seed = HMAC-SHA256(key, student id)``, its first 31 bits (seeds are below
2**31, as the grader draws them). The key is the course's secret
(:data:`KEY_VARIABLE` in the environment: a repository secret in the class
and GPU workflows, a file in the Gradescope zip, private on Gradescope); the
student id is the one the grade of record already uses (the folder name in
``batch``, the repository's name in the workflows, the Gradescope user id).
Without the key no one can compute a student's inputs in advance; with it
the instructor replays any student with ``grade --seed``.
"""

from __future__ import annotations

import hashlib
import hmac
import os

#: The environment variable holding the course key.
KEY_VARIABLE = "GRADER_SEED_KEY"


def student_seed(key: bytes, student: str) -> int:
    """The seed of record of ``student`` under ``key``: HMAC-SHA256 truncated to 31 bits."""
    if not key:
        raise ValueError("the course key is empty")
    mac = hmac.new(key, student.encode("utf-8"), hashlib.sha256).digest()
    return int.from_bytes(mac[:4], "big") & 0x7FFFFFFF


def key_from_environment(environ=None) -> bytes | None:
    """The course key from ``$GRADER_SEED_KEY`` (surrounding whitespace dropped), or None when unset or empty."""
    value = (os.environ if environ is None else environ).get(KEY_VARIABLE, "").strip()
    return value.encode("utf-8") if value else None
