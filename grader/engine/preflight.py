"""The preflight: can an exercise be checked at all? One import and one tiny call per exercise.

A file that is missing, does not import, or whose entry points all still
raise NotImplementedError gets one message on all its checks, which then do
not run: a stub costs milliseconds instead of seconds of worker start-ups.
"""

from __future__ import annotations

from dataclasses import dataclass

from grader import registry
from grader.sandbox import Sandbox
from grader.shared.common import probe_module

PREFLIGHT_TIMEOUT_S = 20.0


@dataclass(frozen=True)
class Preflight:
    """One exercise's preflight: ``note`` is '' if it can be checked, else the one message all its checks get;
    ``confirm_alone`` says, from the probes' statuses and causes (never from the note's text), that a preflight probe
    ran out of time or was killed by SIGKILL: a verdict the machine could have caused (grader.engine.confirm)."""

    note: str
    confirm_alone: bool = False


def preflight(sandbox: Sandbox, exercise: str, timeout_scale: float = 1.0) -> str:
    """'' if the exercise can be checked, else the one message that all its checks get."""
    return run_preflight(sandbox, exercise, timeout_scale).note


def run_preflight(sandbox: Sandbox, exercise: str, timeout_scale: float = 1.0) -> Preflight:
    """The :class:`Preflight` of ``exercise``: one import and one tiny call, in ``sandbox``."""
    filename = f"{exercise}.py"
    limit = PREFLIGHT_TIMEOUT_S * timeout_scale
    if filename not in sandbox.copied:
        reason = sandbox.skipped.get(filename, "")
        return Preflight(f"{filename} is missing from the submission" + (f" ({reason})" if reason else ""))
    loaded = sandbox.run(f"{probe_module('common')}:load", {"exercise": exercise}, timeout=limit)
    if loaded.status == "timeout":
        return Preflight(f"importing {filename} did not finish within {limit:.0f} s (an endless loop at import time?)"
                         f"{_where(loaded)}", confirm_alone=True)
    if not loaded.ok:
        detail = loaded.error or loaded.status
        if loaded.error_type == "SyntaxError" and "utf-8" in detail.lower():
            return Preflight(f"{filename} is not valid UTF-8 text: {detail}. Save the file as UTF-8.")
        return Preflight(f"{filename} could not be imported: {detail}", confirm_alone=loaded.cause == "killed")
    entries = sandbox.run(f"{probe_module('common')}:entry_points", {"exercise": exercise}, timeout=limit)
    if entries.status == "timeout":
        return Preflight(f"calling the code of {filename} once on a tiny input did not finish within {limit:.0f} s "
                         f"(an endless loop or a blocking call?){_where(entries)}", confirm_alone=True)
    if not (entries.ok and isinstance(entries.data, dict) and entries.data
            and all(isinstance(v, str) for v in entries.data.values())):
        return Preflight("")  # not plain stub answers (the submission may have forged them): let the checks judge
    if all(v.startswith("not implemented") for v in entries.data.values()):
        names = list(entries.data)
        verb = "raises" if len(names) == 1 else "raise"
        return Preflight(f"not implemented yet: {', '.join(names)} still {verb} NotImplementedError (start with the "
                         f"docstrings in {filename}, then {registry.exercise(exercise).pointer})")
    return Preflight("")


def _where(result) -> str:
    """Where the student's code was when a probe that timed out was stopped, on lines of its own ('' if unknown)."""
    return f"\n{result.traceback.strip()}" if result.status == "timeout" and result.traceback.strip() else ""
