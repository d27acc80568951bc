"""The pytest plugin that runs the checks in-process and maps each pytest report to one check outcome."""

from __future__ import annotations

import contextlib
import io
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from grader.engine.checking import CheckFailed, Context, ProbeProblem
from grader.paths import REPO
from grader.registry import REGISTRY
from grader.text import first_paragraph

#: The grader's own pytest configuration for the check files (never the repository's).
CHECKS_INI = Path(__file__).with_name("checks_pytest.ini")
#: Where pytest's root is: the exercises' folders, each holding its check_<exercise>.py.
EXERCISES_DIR = REPO / "grader" / "exercises"
#: How the message of a check starts when it was not run because an earlier check of its exercise timed out.
NOT_RUN_AFTER_TIMEOUT = "not run: an earlier check"
NOT_RUN_AFTER_OVERSIZE = NOT_RUN_AFTER_TIMEOUT  # the same start: the seed-invariance test treats both as not run


class GraderFault(RuntimeError):
    """The grader itself failed (not the submission): exit status 2."""


@dataclass
class CheckOutcome:
    """What one check came to, before the rubric gives it points."""

    status: str
    message: str = ""
    output: str = ""
    duration_s: float = 0.0
    cause: str = ""  # the probe's word on how it ended (ProbeProblem.cause), for grader.engine.confirm


def check_name(item) -> str:
    return item.name.removeprefix("check_")


def exercise_of(item) -> str:
    return Path(str(item.fspath)).stem.removeprefix("check_")


class ChecksPlugin:
    """pytest plugin: hands the Context to the checks and records every outcome.

    ``only``, if given, is the set of (exercise, check) to run (a confirmation's re-run); ``meter``, if given,
    is told when each check begins and ends (:class:`grader.engine.confirm.LoadMeter`).
    """

    def __init__(self, ctx: Context, selected: list[str], unavailable: dict[str, str], progress, *,
                 only: set | None = None, meter=None):
        self.only = only
        self.meter = meter
        self.context = ctx
        self.selected = selected
        self.unavailable = unavailable
        self.progress = progress
        self.outcomes: dict[tuple[str, str], CheckOutcome] = {}
        self.descriptions: dict[tuple[str, str], str] = {}
        self.timed_out: set[str] = set()  # exercises with a check that timed out
        self.oversized: set[str] = set()  # exercises with a check whose answer was refused for its size
        self.not_here: dict[tuple[str, str], str] = {}  # checks this runner cannot run (checking.ON_GPU), and why

    @pytest.fixture
    def ctx(self, request):
        # A hang usually hangs every call: after one timeout the exercise's other
        # checks are not run, so a hanging submission costs one timeout, not ten.
        exercise = exercise_of(request.node)
        if exercise in self.timed_out:
            raise ProbeProblem("timeout", f"{NOT_RUN_AFTER_TIMEOUT} of {exercise} timed out, so its code was not "
                               "called again. Fix the hang first.")
        if exercise in self.oversized:
            raise ProbeProblem("error", f"{NOT_RUN_AFTER_OVERSIZE} of {exercise} returned a result larger than the "
                               "grader reads, so its code was not called again (each such answer costs seconds to "
                               "make and refuse). Return what the docstring says, of the shape it says.")
        self.context.begin_check(request.node.nodeid, exercise)
        if self.meter is not None:
            self.meter.begin()
        return self.context

    def pytest_collection_modifyitems(self, session, config, items):
        keep, drop = [], []
        for item in items:
            key = (exercise_of(item), check_name(item))
            self.descriptions[key] = first_paragraph(item.function.__doc__)
            where, reason = getattr(item.function, "runs_only", (None, ""))
            if where is not None and (where == "gpu") != self.context.use_gpu:
                self.not_here[key] = reason
                item.add_marker(pytest.mark.skip(reason=reason))
            if key[0] in self.selected and key[0] not in self.unavailable and (self.only is None or key in self.only):
                keep.append(item)
            else:
                drop.append(item)
        items[:] = keep
        config.hook.pytest_deselected(items=drop)

    @pytest.hookimpl(hookwrapper=True)
    def pytest_runtest_makereport(self, item, call):
        outcome = yield
        report = outcome.get_result()
        key = (exercise_of(item), check_name(item))
        if report.when == "call" or (report.when == "setup" and not report.passed):
            self.outcomes[key] = self._outcome(report, call, item.nodeid)
            if self.meter is not None:
                self.meter.end(key)
            if self.outcomes[key].status == "timeout":
                self.timed_out.add(key[0])
            if call.excinfo is not None and isinstance(call.excinfo.value, ProbeProblem) and call.excinfo.value.oversized:
                self.oversized.add(key[0])
            self.progress(f"  {key[0]}/{key[1]}: {self.outcomes[key].status}")

    def _outcome(self, report, call, nodeid) -> CheckOutcome:
        output = self.context.outputs.get(nodeid, "")
        duration = report.duration
        tampered = self.context.flags_by_check.get(nodeid)
        if report.passed and tampered:  # its data cannot be trusted
            found = "; ".join(flag.text() for flag in list(tampered)[:5])
            return CheckOutcome("failed", "your code replaced functions the grader relies on, or installed a trace or "
                           f"profile hook, while this check ran, so its results cannot be trusted: {found}. Do not "
                           "modify torch, numpy, random, builtins or the grader's code.", output, duration)
        if report.passed:
            return CheckOutcome("passed", output=output, duration_s=duration)
        if report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            return CheckOutcome("skipped", reason.removeprefix("Skipped: "), output, duration)
        exc = call.excinfo.value if call.excinfo else None
        if isinstance(exc, ProbeProblem):
            return CheckOutcome(exc.status, str(exc), exc.output or output, duration, exc.cause)
        if isinstance(exc, CheckFailed):
            return CheckOutcome("failed", str(exc), output, duration)
        if call.excinfo and call.excinfo.typename == "Failed" and "Timeout" in str(exc):
            return CheckOutcome("timeout", "the check ran out of time", output, duration)
        # A check tripped over data it did not expect: almost always a submission
        # returning something odd. Say so, and keep the trace for the instructor.
        print(f"grader: unexpected {call.excinfo.typename} in {nodeid}:\n{report.longreprtext}", file=sys.stderr)
        return CheckOutcome("error", f"the grader could not interpret what your code returned ({call.excinfo.typename}: {exc})",
                       output, duration)


def run_checks(plugin: ChecksPlugin, fail_fast: bool = False, check_time_limit_s: float | None = None) -> None:
    """Run pytest over the check files with ``plugin``; GraderFault when pytest itself could not run."""
    args = [*(str(REPO / entry.checks) for entry in REGISTRY), "-c", str(CHECKS_INI), "--rootdir", str(EXERCISES_DIR),
            "-q", "--no-header", "--tb=no", "-p", "no:cacheprovider", "-p", "no:randomly", "--import-mode=importlib"]
    if fail_fast:
        args.append("--exitfirst")
    if check_time_limit_s is not None:
        args += ["-o", f"timeout={check_time_limit_s:g}"]
    with contextlib.redirect_stdout(io.StringIO()):
        code = pytest.main(args, plugins=[plugin])
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED):
        raise GraderFault(f"pytest could not run the checks (exit code {int(code)})")
