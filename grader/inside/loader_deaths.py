"""Whether a DataLoader call failed because one of its workers died, judged from the workers' exit codes.

torch reports a dead worker with a ``RuntimeError`` whose text any code can
raise as well; the grader never matches that text. The probe's own loader
call (:func:`grader.inside.probes.common.worker_batches`) asks the pool's
processes how they ended and records the answer on the exception
(:func:`mark`); the probe child (:mod:`grader.inside.child`) sends it as
``ProbeResult.cause``: "killed" when a worker ended by SIGKILL (the
out-of-memory killer's signal), "died" when it ended otherwise.
"""

from __future__ import annotations

import signal

ATTRIBUTE = "_grader_worker_death"


def cause_of(workers) -> str:
    """"killed", "died" or "" for the worker processes ``workers`` (multiprocessing.Process objects)."""
    ended = [w.exitcode for w in workers if w.exitcode is not None and w.exitcode != 0]
    if -signal.SIGKILL in ended:
        return "killed"
    return "died" if ended else ""


def mark(exc: BaseException, workers) -> None:
    """Record on ``exc`` how the pool's ``workers`` ended, where one of them did not exit cleanly."""
    if cause := cause_of(workers):
        try:
            setattr(exc, ATTRIBUTE, cause)
        except (AttributeError, TypeError):
            pass


def recorded(exc: BaseException) -> str:
    """The cause :func:`mark` recorded on ``exc`` ("" when none, or when it is not one of the two words)."""
    try:
        cause = exc.__dict__.get(ATTRIBUTE, "") if hasattr(exc, "__dict__") else ""
    except Exception:  # noqa: BLE001 - a student's exception may have a hostile __dict__
        return ""
    return cause if cause in ("killed", "died") else ""
