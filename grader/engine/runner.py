"""Grade one submission: sandbox + pytest checks + rubric -> one GradeResult.

Process layout. The grading process (this one) runs pytest in-process over
grader/engine/checks/ and never imports student code. It starts one sandbox zygote
(torch and numpy preloaded once, about 2 s); every probe is a fork of it, so
a check costs milliseconds unless it starts DataLoader workers.

Before the checks, a preflight per exercise imports the student's module and
calls its entry points once. An exercise whose file is missing or does not
import, or whose entry points all still raise NotImplementedError, gets one
message on all its checks, which then do not run: a stub costs a few
milliseconds instead of seconds of worker start-ups.
"""

from __future__ import annotations

import configparser
import contextlib
import io
import os
import secrets
import sys
import time
import traceback
from dataclasses import dataclass
from datetime import datetime, timezone
from pathlib import Path

import pytest

from grader import registry
from grader.engine import provenance
from grader.engine.checks.support import CHECK_BUDGET_S, CheckFailed, Context, ProbeProblem, where_to_look
from grader.engine.results import EXERCISES, CheckResult, ExerciseResult, GradeResult
from grader.engine.rubric import DEFAULT_RUBRIC, load_rubric
from grader.paths import REPO
from grader.registry import CONTRACT_FILES
from grader.sandbox import Sandbox
from grader.sandbox.host import ANSWER_GRACE
from grader.text import clean_text, first_paragraph

CHECKS_DIR = Path(__file__).with_name("checks")
PROBE_MODULES = ("grader.engine.probes.common", *(entry.probe for entry in registry.REGISTRY))
PREFLIGHT_TIMEOUT_S = 20.0
#: Accepted range of ``timeout_scale``. Its top is bounded by the per-check limit of pytest-timeout
#: (checks/pytest.ini), which must stay above the longest check's budget (support.CHECK_BUDGET_S,
#: scaled) plus the sandbox's grace for a late answer: see :func:`timeout_scale_problem`.
TIMEOUT_SCALE_RANGE = (0.1, 3.0)


def check_time_limit_s() -> float:
    """The per-check limit of pytest-timeout, from checks/pytest.ini (the backstop above each check's budget)."""
    config = configparser.ConfigParser()
    config.read(CHECKS_DIR / "pytest.ini", encoding="utf-8")
    return config.getfloat("pytest", "timeout")


def timeout_scale_problem(scale: float) -> str:
    """'' if ``scale`` is an accepted timeout scale, else what is wrong with it."""
    low, high = TIMEOUT_SCALE_RANGE
    if not low <= scale <= high:
        return f"timeout scale must be from {low:g} to {high:g}, got {scale:g}"
    longest = CHECK_BUDGET_S * scale + ANSWER_GRACE
    if longest >= check_time_limit_s():
        return (f"timeout scale {scale:g} gives a check up to {longest:.0f} s, beyond the per-check limit of "
                f"{check_time_limit_s():.0f} s in grader/engine/checks/pytest.ini")
    return ""

CPU_MEMORY_MB = 4096
GPU_MEMORY_MB = 1 << 20
GRADER_VERSION = "1.0"
MAX_INTEGRITY_FLAGS = 40
EXTRA_FILE_NAMES = ("conftest.py", "sitecustomize.py", "usercustomize.py", "pytest.ini", "torch.py", "numpy.py", "setup.py")


class GraderFault(RuntimeError):
    """The grader itself failed (not the submission): exit status 2."""


@dataclass
class Outcome:
    status: str
    message: str = ""
    output: str = ""
    duration_s: float = 0.0


def check_name(item) -> str:
    return item.name.removeprefix("check_")


def exercise_of(item) -> str:
    return Path(str(item.fspath)).stem.removeprefix("check_")


class ChecksPlugin:
    """pytest plugin: hands the Context to the checks and records every outcome."""

    def __init__(self, ctx: Context, selected: list[str], unavailable: dict[str, str], progress):
        self.context = ctx
        self.selected = selected
        self.unavailable = unavailable
        self.progress = progress
        self.outcomes: dict[tuple[str, str], Outcome] = {}
        self.descriptions: dict[tuple[str, str], str] = {}
        self.timed_out: set[str] = set()  # exercises with a check that timed out
        self.not_here: dict[tuple[str, str], str] = {}  # checks this runner cannot run (support.ON_GPU), and why

    @pytest.fixture
    def ctx(self, request):
        # A hang usually hangs every call: after one timeout the exercise's other
        # checks are not run, so a hanging submission costs one timeout, not ten.
        exercise = exercise_of(request.node)
        if exercise in self.timed_out:
            raise ProbeProblem("timeout", f"not run: an earlier check of {exercise} timed out, so its code was not "
                               "called again. Fix the hang first.")
        self.context.begin_check(request.node.nodeid)
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
            if key[0] in self.selected and key[0] not in self.unavailable:
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
            if self.outcomes[key].status == "timeout":
                self.timed_out.add(key[0])
            self.progress(f"  {key[0]}/{key[1]}: {self.outcomes[key].status}")

    def _outcome(self, report, call, nodeid) -> Outcome:
        output = self.context.outputs.get(nodeid, "")
        duration = report.duration
        tampered = self.context.flags_by_check.get(nodeid)
        if report.passed and tampered:  # its data cannot be trusted
            found = "; ".join(flag.text() for flag in list(tampered)[:5])
            return Outcome("failed", "your code replaced functions the grader relies on, or installed a trace or "
                           f"profile hook, while this check ran, so its results cannot be trusted: {found}. Do not "
                           "modify torch, numpy, random, builtins or the grader's code.", output, duration)
        if report.passed:
            return Outcome("passed", output=output, duration_s=duration)
        if report.skipped:
            reason = report.longrepr[2] if isinstance(report.longrepr, tuple) else str(report.longrepr)
            return Outcome("skipped", reason.removeprefix("Skipped: "), output, duration)
        exc = call.excinfo.value if call.excinfo else None
        if isinstance(exc, ProbeProblem):
            return Outcome(exc.status, str(exc), exc.output or output, duration)
        if isinstance(exc, CheckFailed):
            return Outcome("failed", str(exc), output, duration)
        if call.excinfo and call.excinfo.typename == "Failed" and "Timeout" in str(exc):
            return Outcome("timeout", "the check ran out of time", output, duration)
        # A check tripped over data it did not expect: almost always a submission
        # returning something odd. Say so, and keep the trace for the instructor.
        print(f"grader: unexpected {call.excinfo.typename} in {nodeid}:\n{report.longreprtext}", file=sys.stderr)
        return Outcome("error", f"the grader could not interpret what your code returned ({call.excinfo.typename}: {exc})",
                       output, duration)


def cuda_device() -> str:
    """The name of CUDA device 0, or "" when there is none.

    Without NVIDIA's device nodes there is no CUDA, and the grading process
    skips the 2 s ``import torch`` that asking PyTorch would cost.
    """
    if not Path("/dev/nvidiactl").exists():
        return ""
    import torch

    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else ""


def _preflight(sandbox: Sandbox, exercise: str, timeout_scale: float = 1.0) -> str:
    """'' if the exercise can be checked, else the one message that all its checks get."""
    filename = f"{exercise}.py"
    limit = PREFLIGHT_TIMEOUT_S * timeout_scale
    if filename not in sandbox.copied:
        reason = sandbox.skipped.get(filename, "")
        return f"{filename} is missing from the submission" + (f" ({reason})" if reason else "")
    loaded = sandbox.run("grader.engine.probes.common:load", {"exercise": exercise}, timeout=limit)
    if loaded.status == "timeout":
        return f"importing {filename} did not finish within {limit:.0f} s (an endless loop at import time?){_where(loaded)}"
    if not loaded.ok:
        detail = loaded.error or loaded.status
        if loaded.error_type == "SyntaxError" and "utf-8" in detail.lower():
            return f"{filename} is not valid UTF-8 text: {detail}. Save the file as UTF-8."
        return f"{filename} could not be imported: {detail}"
    entries = sandbox.run("grader.engine.probes.common:entry_points", {"exercise": exercise}, timeout=limit)
    if entries.status == "timeout":
        return (f"calling the code of {filename} once on a tiny input did not finish within {limit:.0f} s "
                f"(an endless loop or a blocking call?){_where(entries)}")
    if not (entries.ok and isinstance(entries.data, dict) and entries.data
            and all(isinstance(v, str) for v in entries.data.values())):
        return ""  # not plain stub answers (the submission may have forged them): let the checks judge
    if all(v.startswith("not implemented") for v in entries.data.values()):
        names = list(entries.data)
        verb = "raises" if len(names) == 1 else "raise"
        return (f"not implemented yet: {', '.join(names)} still {verb} NotImplementedError (start with the docstrings in "
                f"{filename}, then {registry.exercise(exercise).pointer})")
    return ""


def _where(result) -> str:
    """Where the student's code was when a probe that timed out was stopped, on lines of its own ('' if unknown)."""
    return f"\n{result.traceback.strip()}" if result.status == "timeout" and result.traceback.strip() else ""


def _run_checks(plugin: ChecksPlugin, fail_fast: bool = False, check_time_limit_s: float | None = None) -> None:
    args = [str(CHECKS_DIR), "-c", str(CHECKS_DIR / "pytest.ini"), "--rootdir", str(CHECKS_DIR),
            "-q", "--no-header", "--tb=no", "-p", "no:cacheprovider", "-p", "no:randomly", "--import-mode=importlib"]
    if fail_fast:
        args.append("--exitfirst")
    if check_time_limit_s is not None:
        args += ["-o", f"timeout={check_time_limit_s:g}"]
    with contextlib.redirect_stdout(io.StringIO()):
        code = pytest.main(args, plugins=[plugin])
    if code not in (pytest.ExitCode.OK, pytest.ExitCode.TESTS_FAILED, pytest.ExitCode.NO_TESTS_COLLECTED):
        raise GraderFault(f"pytest could not run the checks (exit code {int(code)})")


def _integrity_flags(submission: Path, sandbox: Sandbox, ctx: Context) -> list[str]:
    flags = [f"ignored extra file {name} in the submission" for name in EXTRA_FILE_NAMES if (submission / name).exists()]
    flags += [f"{name} not graded: it {reason}" for name, reason in sandbox.skipped.items() if reason != "missing"]
    return (flags + _summarize(ctx.flags))[:MAX_INTEGRITY_FLAGS]


def _summarize(flags) -> list[str]:
    """One line per (kind, name, exercise): "replaced X while sharding was graded (3 probes)"."""
    counts: dict[tuple[str, str, str], int] = {}
    for flag in flags:
        key = (flag.kind, flag.name, flag.exercise or flag.probe)
        counts[key] = counts.get(key, 0) + 1
    lines = []
    for (kind, name, where), n in counts.items():
        what = f"replaced {name}" if kind == "replaced" else f"tried to install a hook ({name}), blocked,"
        lines.append(f"{what} while {where} was graded ({n} probe{'s' if n > 1 else ''})")
    return lines


def check_submission_folder(submission: Path) -> Path:
    """``submission`` if it may be graded; raise ValueError (with what to fix) if not.

    A submission folder must be a real folder, not a symbolic link, and must
    not lead into this repository through a link (a student's ``exercises``
    pointing at ``solutions/`` would grade the reference).
    """
    if submission.is_symlink():
        raise ValueError(f"submission folder {submission} is a symbolic link; give the real folder")
    if not submission.is_dir():
        raise FileNotFoundError(f"submission folder {submission} does not exist")
    real, given = Path(os.path.realpath(submission)), Path(os.path.abspath(submission))
    if real.is_relative_to(REPO) and not given.is_relative_to(REPO):
        raise ValueError(f"submission folder {submission} leads into the grader's repository ({real}) through a link")
    return submission


def grade(submission, *, seed: int | None = None, only: list[str] | None = None, gpu: str = "auto",
          rubric_path: Path = DEFAULT_RUBRIC, fail_fast: bool = False, progress=None, jail: str = "auto",
          min_isolation: str = "weak", kernel_layers: bool = True,
          report=None, timeout_scale: float = 1.0, check_time_limit_s: float | None = None,
          seed_secret: bool = False) -> GradeResult:
    """Grade the five contract files in ``submission`` and return the result.

    ``seed`` fixes every randomized input (a fresh one is drawn and reported
    when None); ``only`` limits grading to some exercises; ``gpu`` is "auto"
    (pin_memory checks where CUDA is available), "on" or "off". With
    ``fail_fast`` grading stops at the first check that does not pass and
    the checks after it are reported as skipped (a quick look, not a grade).
    ``jail`` is the sandbox's mode ("auto": bubblewrap's namespaces where
    they can be made, "off"), ``kernel_layers`` whether Landlock and seccomp
    are applied too; ``min_isolation`` the weakest level accepted
    (see :mod:`grader.isolation`); the result says which layers held. ``report``, if given, is
    called with the result before the sandbox is cleaned up, so a cleanup
    that fails can never lose a report. ``timeout_scale`` multiplies every
    time limit of the student's code (preflight 20 s, in-process probes 30 s,
    worker probes 60 s); the result records it. ``check_time_limit_s``
    replaces the per-check backstop of pytest-timeout (checks/pytest.ini);
    only the tests use it, to stop a check in the middle of a probe.
    ``seed_secret`` marks ``seed`` as a student's secret seed of record (the
    student's reports leave it out). The result names the grader (the hash of
    its published tree) and the environment it ran on.

    Raises FileNotFoundError or ValueError for a submission folder that is
    missing or may not be graded, RubricError for a bad rubric, SandboxError
    when the isolation is below ``min_isolation``, and GraderFault when the grader
    itself breaks; a broken submission never raises.
    """
    submission = check_submission_folder(Path(submission))
    if problem := timeout_scale_problem(timeout_scale):
        raise ValueError(problem)
    rubric = load_rubric(rubric_path)
    selected = [e for e in EXERCISES if not only or e in only]
    seed = secrets.randbelow(2**31) if seed is None else seed
    progress = _cleaned(progress or (lambda message: None))
    started = time.monotonic()
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")

    gpu_name = cuda_device() if gpu != "off" else ""
    if gpu == "on" and not gpu_name:
        raise GraderFault("--gpu on, but PyTorch finds no CUDA device on this machine")
    use_gpu = bool(gpu_name)
    # CUDA reserves far more address space than the CPU limit allows.
    memory_mb = GPU_MEMORY_MB if use_gpu else CPU_MEMORY_MB
    phases = {}
    with Sandbox(submission, files=CONTRACT_FILES, probe_modules=PROBE_MODULES, memory_mb=memory_mb,
                 jail=jail, min_isolation=min_isolation, kernel_layers=kernel_layers, gpu=use_gpu) as sandbox:
        phases["sandbox_start"] = round(sandbox.zygote_start_s, 3)
        ctx = Context(sandbox=sandbox, seed=seed, use_gpu=use_gpu, timeout_scale=timeout_scale)
        unavailable = {}
        for exercise in selected:
            began = time.monotonic()
            note = _preflight(sandbox, exercise, timeout_scale)
            phases[f"preflight/{exercise}"] = round(time.monotonic() - began, 3)
            if note:
                unavailable[exercise] = note
                progress(f"  {exercise}: {note}")
        plugin = ChecksPlugin(ctx, selected, unavailable, progress)
        try:
            _run_checks(plugin, fail_fast, check_time_limit_s)
        except GraderFault:
            raise
        except Exception as exc:
            raise GraderFault(f"the checks crashed: {exc}\n{traceback.format_exc()}") from exc
        exercises = [_exercise_result(e, rubric[e], plugin, unavailable.get(e, ""), fail_fast) for e in selected]
        result = GradeResult(
            exercises=exercises, seed=seed, duration_s=round(time.monotonic() - started, 2),
            submission=str(submission), started_at=started_at, grader_version=GRADER_VERSION,
            integrity_flags=_integrity_flags(submission, sandbox, ctx), gpu=gpu_name or "none",
            isolation=sandbox.isolation.to_dict(), phases=phases, timeout_scale=timeout_scale,
            seed_secret=seed_secret, grader_sha256=provenance.this_grader_hash(),
            environment=provenance.environment(gpu_name or "none", sandbox.isolation.level))
        if report is not None:
            report(result)
    return result


def _cleaned(progress):
    """``progress`` that only ever sees printable text (student text reaches it via notes)."""
    return lambda message: progress(clean_text(message))


NOT_RUN = Outcome("skipped", "not run: grading stopped at the first check that did not pass (--fail-fast)")


def _exercise_result(exercise: str, entries: dict, plugin: ChecksPlugin, note: str, fail_fast: bool) -> ExerciseResult:
    checks = []
    for name, entry in entries.items():
        key = (exercise, name)
        if key in plugin.not_here:
            outcome = Outcome("skipped", plugin.not_here[key])  # whatever the submission
        else:
            outcome = Outcome("failed", note) if note else plugin.outcomes.get(key)
        if outcome is None and fail_fast and key in plugin.descriptions:
            outcome = NOT_RUN
        if outcome is None:
            raise GraderFault(f"rubric check {exercise}.{name} has no check function in grader/engine/checks/check_{exercise}.py")
        message = outcome.message
        if outcome.status not in ("passed", "skipped") and not note:
            message = f"{message}\nWhere to look: {where_to_look(exercise)}."
        checks.append(CheckResult(
            name=name, exercise=exercise, status=outcome.status,
            score=entry.points if outcome.status == "passed" else 0.0, max_score=entry.points,
            message=message, description=plugin.descriptions.get(key, ""), visibility=entry.visibility,
            output=outcome.output, duration_s=round(outcome.duration_s, 3),
        ))
    missing = set(k[1] for k in plugin.descriptions if k[0] == exercise) - set(entries)
    if missing:
        raise GraderFault(f"checks {sorted(missing)} of {exercise} have no points in the rubric")
    return ExerciseResult(name=exercise, checks=checks, note=note)
