"""The seeds of a grading: the secret seed of record (grader/docs/DESIGN.md, principle 8) and the push feedback's public seed (principle 4).

``seed = HMAC-SHA256(key, student id)``, its first 31 bits (seeds are below
2**31, as the grader draws them). The key is the course's secret
(:data:`KEY_VARIABLE` in the environment: a repository secret in the class
and GPU workflows, a file in the Gradescope zip, private on Gradescope); the
student id is the one the grade of record already uses (the folder name in
``batch``, the repository's name in the workflows, the Gradescope user id).
Without the key no one can compute a student's inputs in advance; with it
the instructor replays any student with ``grade --seed``.

The feedback a student gets on every push is graded with a *public* seed
instead: ``feedback_seed(repository)``, a plain SHA-256 of the repository's
name (``owner/name``, case folded), cut to 31 bits the same way. Anyone can
compute it, and that is its point: the same files pushed twice get the same
inputs, so the same score and the same feedback (``grade
--seed-from-repository``). It is never a seed of record: the grade of record
uses the secret seed, other inputs of the same kind.
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


#: What is hashed with the repository's name, so that the public seed is no other hash of the name anyone uses.
FEEDBACK_SEED_LABEL = b"data-loading-lab push feedback\0"


def feedback_seed(repository: str) -> int:
    """The push feedback's public seed of ``repository`` (``owner/name``): SHA-256 of the label and the case-folded
    name, truncated to 31 bits. Raises ValueError for an empty name."""
    name = repository.strip().casefold()
    if not name:
        raise ValueError("the repository name is empty; give owner/name, as $GITHUB_REPOSITORY holds it")
    digest = hashlib.sha256(FEEDBACK_SEED_LABEL + name.encode("utf-8")).digest()
    return int.from_bytes(digest[:4], "big") & 0x7FFFFFFF
