"""Grade one submission: sandbox + preflight + pytest checks + rubric -> one GradeResult (the orchestration).

The pytest plugin that runs the checks is :mod:`grader.engine.plugin`, the
preflight :mod:`grader.engine.preflight`, and what was submitted is
:mod:`grader.sandbox.files`' answer.

Process layout. The grading process (this one) runs pytest in-process over
the exercises' check files (grader/exercises/<exercise>/check_<exercise>.py) and never imports student code. It starts one sandbox zygote
(torch and numpy preloaded once, about 2 s); every probe is a fork of it, so
a check costs milliseconds unless it starts DataLoader workers.

Before the checks, a preflight per exercise imports the student's module and
calls its entry points once. An exercise whose file is missing or does not
import, or whose entry points all still raise NotImplementedError, gets one
message on all its checks, which then do not run: a stub costs a few
milliseconds instead of seconds of worker start-ups.

After the checks, a verdict the machine's load could cause (a timeout; a
check that did not pass while other processes overloaded the machine) is
confirmed alone (:mod:`grader.engine.confirm`): the check runs again, its
preflight first, with nothing else of this grading running, and the
confirming run's verdict is final. ``batch`` asks for these to be left
pending and confirms them with :func:`confirm_pending` once the class's
gradings are done, one student at a time.
"""

from __future__ import annotations

import configparser
import dataclasses
import secrets
import time
import traceback
from contextlib import nullcontext
from datetime import datetime, timezone
from pathlib import Path

from grader import registry
from grader.engine import provenance, throughput
from grader.engine.checking import CHECK_BUDGET_S, Context, where_to_look
from grader.engine.confirm import PASSED_NOTE, LoadMeter, confirmed_message, needs_confirmation
from grader.engine.plugin import CHECKS_INI, CheckOutcome, ChecksPlugin, GraderFault, run_checks
from grader.engine.preflight import run_preflight
from grader.engine.results import EXERCISES, MAX_INTEGRITY_FLAGS, CheckResult, ExerciseResult, GradeResult
from grader.engine.rubric import THROUGHPUT_EXERCISE, ThroughputRule, load_rubric, load_throughput_rule
from grader.registry import CONTRACT_FILES
from grader.sandbox import Sandbox
from grader.sandbox.files import check_submission_folder, extra_files
from grader.sandbox.host import ANSWER_GRACE
from grader.shared.common import probe_module
from grader.text import clean_text

PROBE_MODULES = (probe_module("common"), *(entry.probe for entry in registry.REGISTRY), probe_module("throughput"))
#: Accepted range of ``timeout_scale``. Its top is bounded by the per-check limit of pytest-timeout
#: (checks_pytest.ini), which must stay above the longest check's budget (checking.CHECK_BUDGET_S,
#: scaled) plus the sandbox's grace for a late answer: see :func:`timeout_scale_problem`.
TIMEOUT_SCALE_RANGE = (0.1, 3.0)


def check_time_limit_s() -> float:
    """The per-check limit of pytest-timeout, from checks_pytest.ini (the backstop above each check's budget)."""
    config = configparser.ConfigParser()
    config.read(CHECKS_INI, encoding="utf-8")
    return config.getfloat("pytest", "timeout")


def timeout_scale_problem(scale: float) -> str:
    """'' if ``scale`` is an accepted timeout scale, else what is wrong with it."""
    low, high = TIMEOUT_SCALE_RANGE
    if not low <= scale <= high:
        return f"timeout scale must be from {low:g} to {high:g}, got {scale:g}"
    longest = CHECK_BUDGET_S * scale + ANSWER_GRACE
    if longest >= check_time_limit_s():
        return (f"timeout scale {scale:g} gives a check up to {longest:.0f} s, beyond the per-check limit of "
                f"{check_time_limit_s():.0f} s in grader/engine/checks_pytest.ini")
    return ""

CPU_MEMORY_MB = 4096
GPU_MEMORY_MB = 1 << 20
#: When a verdict the machine's load could cause is confirmed alone (see grade()).
CONFIRM_MODES = ("now", "later")


def cuda_device() -> str:
    """The name of CUDA device 0, or "" when there is none.

    Without NVIDIA's device nodes there is no CUDA, and the grading process
    skips the 2 s ``import torch`` that asking PyTorch would cost.
    """
    if not Path("/dev/nvidiactl").exists():
        return ""
    import torch

    return torch.cuda.get_device_name(0) if torch.cuda.is_available() else ""


def grade(submission, *, seed: int | None = None, only: list[str] | None = None, gpu: str = "auto",
          rubric_path: Path | None = None, fail_fast: bool = False, progress=None, jail: str = "auto",
          min_isolation: str = "weak", kernel_layers: bool = True,
          report=None, timeout_scale: float = 1.0, check_time_limit_s: float | None = None,
          seed_secret: bool = False, confirm: str = "now", fault=None, measure_throughput: bool = True,
          seed_from_repository: str = "", sandbox: Sandbox | None = None) -> GradeResult:
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
    replaces the per-check backstop of pytest-timeout (checks_pytest.ini);
    only the tests use it, to stop a check in the middle of a probe.
    ``seed_secret`` marks ``seed`` as a student's secret seed of record (the
    student's reports leave it out); ``seed_from_repository`` names the
    repository whose public push-feedback seed ``seed`` is (the reports say
    so). With ``measure_throughput`` (and tokens
    graded, its checks all passed, no ``fail_fast``) the grader measures its
    throughput figure (:mod:`grader.engine.throughput`, at most
    ``throughput.BUDGET_S`` seconds); the rubric's ``[throughput]`` table
    says whether it earns points. The result names the grader (the hash of
    its published tree) and the environment it ran on.

    ``confirm`` says when a verdict the machine's load could cause (a
    timeout, or a check that did not pass while other processes overloaded
    the machine: :mod:`grader.engine.confirm`) is confirmed alone: "now",
    after this grading's other checks, the confirming run's verdict being
    final; or "later": left ``"pending"`` in the result for
    :func:`confirm_pending` (``batch`` confirms once the class's gradings are
    done, one at a time). Not with ``fail_fast``. ``fault`` (tests only) is
    called with ((exercise, check), outcome) for every check of the first
    run and returns the outcome to keep: a test makes a check time out once.
    ``sandbox`` (tests only) is a started CPU sandbox whose code folder holds
    ``submission``'s files, to grade in instead of a fresh one (it is left
    open): the corpus tests grade many answers of one exercise in one
    sandbox, swapping the file between gradings; a grading of record always
    makes its own.

    Raises FileNotFoundError or ValueError for a submission folder that is
    missing or may not be graded, RubricError for a bad rubric, SandboxError
    when the isolation is below ``min_isolation``, and GraderFault when the grader
    itself breaks; a broken submission never raises.
    """
    submission = check_submission_folder(Path(submission))
    if problem := timeout_scale_problem(timeout_scale):
        raise ValueError(problem)
    if confirm not in CONFIRM_MODES:
        raise ValueError(f"confirm must be one of {', '.join(CONFIRM_MODES)}, not {confirm!r}")
    rubric = load_rubric(rubric_path)
    rule = load_throughput_rule(rubric_path)
    selected = [e for e in EXERCISES if not only or e in only]
    seed = secrets.randbelow(2**31) if seed is None else seed
    progress = _cleaned(progress or (lambda message: None))
    started = time.monotonic()
    started_at = datetime.now(timezone.utc).isoformat(timespec="seconds")

    gpu_name = cuda_device() if gpu != "off" else ""
    if gpu == "on" and not gpu_name:
        raise GraderFault("--gpu on, but PyTorch finds no CUDA device on this machine")
    if sandbox is not None and gpu_name:
        raise ValueError("a sandbox handed to grade() is a CPU one: pass gpu='off' with it")
    phases = {}
    made = _sandbox(submission, bool(gpu_name), jail, min_isolation, kernel_layers) if sandbox is None else nullcontext(sandbox)
    with made as sandbox:
        phases["sandbox_start"] = round(sandbox.zygote_start_s, 3)
        ctx = Context(sandbox=sandbox, seed=seed, use_gpu=bool(gpu_name), timeout_scale=timeout_scale)
        unavailable, to_confirm = _preflight_all(sandbox, selected, timeout_scale, progress, phases)
        meter = LoadMeter(sandbox)
        plugin = ChecksPlugin(ctx, selected, unavailable, progress, meter=meter)
        _run(plugin, fail_fast, check_time_limit_s)
        outcomes = {key: fault(key, outcome) for key, outcome in plugin.outcomes.items()} if fault else plugin.outcomes
        exercises = [_exercise_result(e, rubric[e], plugin, outcomes, unavailable.get(e, ""), fail_fast) for e in selected]
        if not fail_fast:
            _mark_pending(exercises, outcomes, meter.overloaded, to_confirm)
        if confirm == "now":
            exercises = _confirm(ctx, exercises, rubric, progress, phases, check_time_limit_s)
        figure = _throughput(sandbox, seed, exercises, timeout_scale, phases, measure_throughput and not fail_fast)
        _throughput_check(rule, figure, exercises)
        result = GradeResult(
            exercises=exercises, seed=seed, duration_s=round(time.monotonic() - started, 2),
            submission=str(submission), started_at=started_at, grader_version=provenance.this_grader_version(),
            integrity_flags=_integrity_flags(submission, sandbox, ctx) + ([figure["flag"]] if "flag" in figure else []),
            gpu=gpu_name or "none", throughput=figure,
            isolation=sandbox.isolation.to_dict(), phases=phases, timeout_scale=timeout_scale,
            seed_secret=seed_secret, seed_from_repository=seed_from_repository, grader_sha256=provenance.this_grader_hash(),
            environment=provenance.environment(gpu_name or "none", sandbox.isolation.level))
        if report is not None:
            report(result)
    return result


def confirm_pending(result: GradeResult, submission, *, rubric_path: Path | None = None, progress=None,
                    jail: str = "auto", min_isolation: str = "weak", kernel_layers: bool = True, report=None,
                    check_time_limit_s: float | None = None) -> GradeResult:
    """``result`` (graded with ``confirm="later"``) with its ``"pending"`` checks confirmed alone.

    Re-runs only those checks (and their exercises' preflights) against
    ``submission``, in a fresh sandbox, with the result's seed, GPU and
    timeout scale; their verdicts become the confirming run's (see
    :mod:`grader.engine.confirm`), every other check is kept as it is.
    ``report`` is called with the new result before the sandbox is cleaned
    up. Raises as :func:`grade` does.
    """
    submission = check_submission_folder(Path(submission))
    if not result.confirmations("pending"):
        return result
    rubric = load_rubric(rubric_path)
    rule = load_throughput_rule(rubric_path)
    progress = _cleaned(progress or (lambda message: None))
    started = time.monotonic()
    use_gpu = result.gpu not in ("", "none")
    phases = dict(result.phases)
    with _sandbox(submission, use_gpu, jail, min_isolation, kernel_layers) as sandbox:
        ctx = Context(sandbox=sandbox, seed=result.seed, use_gpu=use_gpu, timeout_scale=result.timeout_scale)
        exercises = _confirm(ctx, result.exercises, rubric, progress, phases, check_time_limit_s)
        figure = result.throughput
        if throughput.awaits_confirmation(figure):  # measured now, alone, as grade() measures after its confirmations
            exercises = _without_check(exercises, "tokens", rule.check_name)
            figure = _throughput(sandbox, result.seed, exercises, result.timeout_scale, phases, True)
            _throughput_check(rule, figure, exercises)
        found = [*result.integrity_flags, *_summarize(ctx.flags), *([figure["flag"]] if "flag" in figure else [])]
        flags = list(dict.fromkeys(found))[:MAX_INTEGRITY_FLAGS]
        result = dataclasses.replace(result, exercises=exercises, phases=phases, integrity_flags=flags, throughput=figure,
                                     duration_s=round(result.duration_s + time.monotonic() - started, 2))
        if report is not None:
            report(result)
    return result


def _sandbox(submission: Path, use_gpu: bool, jail: str, min_isolation: str, kernel_layers: bool) -> Sandbox:
    # CUDA reserves far more address space than the CPU limit allows.
    memory_mb = GPU_MEMORY_MB if use_gpu else CPU_MEMORY_MB
    return Sandbox(submission, files=CONTRACT_FILES, probe_modules=PROBE_MODULES, memory_mb=memory_mb,
                   jail=jail, min_isolation=min_isolation, kernel_layers=kernel_layers, gpu=use_gpu)


def _run(plugin: ChecksPlugin, fail_fast: bool, check_time_limit_s: float | None) -> None:
    try:
        run_checks(plugin, fail_fast, check_time_limit_s)
    except GraderFault:
        raise
    except Exception as exc:
        raise GraderFault(f"the checks crashed: {exc}\n{traceback.format_exc()}") from exc


def _mark_pending(exercises: list[ExerciseResult], outcomes: dict, overloaded: set, preflights: set) -> None:
    """Mark "pending" every check whose verdict must be confirmed alone (grader.engine.confirm.needs_confirmation, from
    its outcome's status and cause), and every check of an exercise in ``preflights`` (its preflight timed out or was
    killed); a check not run here, "skipped", never."""
    for exercise in exercises:
        for check in exercise.checks:
            if check.status == "skipped":
                continue
            key = (check.exercise, check.name)
            outcome = outcomes.get(key)
            cause = outcome.cause if outcome is not None else ""
            if exercise.name in preflights or needs_confirmation(check.status, cause, key in overloaded):
                check.confirmation = "pending"


def _confirm(ctx: Context, exercises: list[ExerciseResult], rubric: dict, progress, phases: dict,
             check_time_limit_s: float | None) -> list[ExerciseResult]:
    """``exercises`` with every "pending" check run again (its exercise's preflight first) and its verdict replaced
    by the confirming run's: "passed" (a plain pass, saying so) or "confirmed" (the new verdict, saying so)."""
    pending = {(c.exercise, c.name) for e in exercises for c in e.checks if c.confirmation == "pending"}
    if not pending:
        return exercises
    began = time.monotonic()
    progress(f"  confirming {len(pending)} check(s) alone: {', '.join(sorted(f'{e}/{n}' for e, n in pending))}")
    ctx.__dict__.pop("_shared_probes", None)  # a shared probe's answer is run again, not read back
    ctx.restart_budgets()
    names = [e.name for e in exercises if any(key[0] == e.name for key in pending)]
    notes, _ = _preflight_all(ctx.sandbox, names, ctx.timeout_scale, progress, {})
    plugin = ChecksPlugin(ctx, names, notes, progress, only=pending)
    _run(plugin, False, check_time_limit_s)
    confirmed = []
    for exercise in exercises:
        if exercise.name not in names:
            confirmed.append(exercise)
            continue
        note = notes.get(exercise.name, "")
        checks = [_confirmed_check(c, _check_result(exercise.name, c.name, rubric[exercise.name][c.name], plugin,
                                                    plugin.outcomes, note, False))
                  if c.confirmation == "pending" else c for c in exercise.checks]
        renote = bool(exercise.note) or bool(note)  # a note on a pending exercise is its preflight's
        confirmed.append(ExerciseResult(name=exercise.name, checks=checks, note=note if renote else exercise.note))
    phases["confirmation"] = round(time.monotonic() - began, 3)
    return confirmed


def _confirmed_check(first: CheckResult, check: CheckResult) -> CheckResult:
    """The confirming run's ``check``, saying so; a pass also says how the ``first`` run ended."""
    if check.passed:
        how = first.message.split("\n", 1)[0][:300]
        return dataclasses.replace(check, confirmation="passed",
                                   message=f"{PASSED_NOTE}. The first run ended {first.status}: {how}")
    return dataclasses.replace(check, confirmation="confirmed", message=confirmed_message(check.status, check.message))


def _throughput(sandbox: Sandbox, seed: int, exercises: list[ExerciseResult], timeout_scale: float, phases: dict,
                wanted: bool) -> dict:
    """The throughput figure, measured (if ``wanted``) when the tokens exercise was graded and every check of it that
    ran passed; {} when tokens was not graded."""
    tokens = next((e for e in exercises if e.name == THROUGHPUT_EXERCISE), None)
    if tokens is None:
        return {}
    if not wanted:
        return throughput.not_measured("turned off for this grading (--throughput off or --fail-fast)")
    if any(c.confirmation == "pending" for c in tokens.checks):
        return throughput.not_measured(throughput.AWAITING_CONFIRMATION)
    if tokens.note or not all(c.status in ("passed", "skipped") for c in tokens.checks):
        return throughput.not_measured("measured only when every tokens check passes")
    began = time.monotonic()
    figure = throughput.measure(sandbox, seed, {"cpu": provenance.cpu_model(), "isolation": sandbox.isolation.level},
                                timeout_scale)
    phases["throughput"] = round(time.monotonic() - began, 3)
    return figure


def _without_check(exercises: list[ExerciseResult], exercise: str, check: str) -> list[ExerciseResult]:
    """``exercises`` with the check named ``check`` of ``exercise`` left out (the throughput check, judged again)."""
    return [dataclasses.replace(e, checks=[c for c in e.checks if c.name != check]) if e.name == exercise else e
            for e in exercises]


def _throughput_check(rule: ThroughputRule, figure: dict, exercises: list[ExerciseResult]) -> None:
    """With points in the rubric's [throughput] table: one more tokens check, passed when the level reaches the threshold."""
    tokens = next((e for e in exercises if e.name == "tokens"), None)
    if not rule.points or tokens is None:
        return
    share = figure.get("levels", {}).get(rule.level, {}).get("share") if figure.get("status") == "measured" else None
    passed = share is not None and share >= rule.threshold
    if share is None:
        message = f"not measured: {figure.get('reason', 'the tokens checks did not pass')}"
    else:
        message = "" if passed else (f"{rule.level} reached {share:.1%} of the raw gather's rate on the grading machine "
                                     f"(median of {figure['rounds']} rounds), below the {rule.threshold:.0%} this course asks for. "
                                     "Where to look: LAB.md, \"Experiment (d): throughput\"; measure with python -m exercises.bench.")
    tokens.checks.append(CheckResult(
        name=rule.check_name, exercise=THROUGHPUT_EXERCISE, status="passed" if passed else "failed",
        score=rule.points if passed else 0.0, max_score=rule.points, message=message, visibility=rule.visibility,
        description=f"Proves that {rule.level} reach at least {rule.threshold:.0%} of the raw gather's rate, measured by the "
                    "grader on the grading machine (median of its rounds)."))


def _integrity_flags(submission: Path, sandbox: Sandbox, ctx: Context) -> list[str]:
    flags = [f"ignored extra file {name} in the submission" for name in extra_files(submission)]
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


def _preflight_all(sandbox: Sandbox, selected: list[str], timeout_scale: float, progress,
                   phases: dict) -> tuple[dict[str, str], set[str]]:
    """({exercise: the one message all its checks get} for the exercises that cannot be checked, the exercises whose
    preflight must be confirmed alone (grader.engine.preflight.Preflight)); times go to ``phases``."""
    unavailable, to_confirm = {}, set()
    for exercise in selected:
        began = time.monotonic()
        found = run_preflight(sandbox, exercise, timeout_scale)
        phases[f"preflight/{exercise}"] = round(time.monotonic() - began, 3)
        if found.note:
            unavailable[exercise] = found.note
            progress(f"  {exercise}: {found.note}")
        if found.confirm_alone:
            to_confirm.add(exercise)
    return unavailable, to_confirm


def _cleaned(progress):
    """``progress`` that only ever sees printable text (student text reaches it via notes)."""
    return lambda message: progress(clean_text(message))


NOT_RUN = CheckOutcome("skipped", "not run: grading stopped at the first check that did not pass (--fail-fast)")


def _exercise_result(exercise: str, entries: dict, plugin: ChecksPlugin, outcomes: dict, note: str,
                     fail_fast: bool) -> ExerciseResult:
    checks = [_check_result(exercise, name, entry, plugin, outcomes, note, fail_fast) for name, entry in entries.items()]
    missing = set(k[1] for k in plugin.descriptions if k[0] == exercise) - set(entries)
    if missing:
        raise GraderFault(f"checks {sorted(missing)} of {exercise} have no promise, so no points: add a [[promise]] "
                          f"named after each to grader/exercises/{exercise}/promises.toml")
    return ExerciseResult(name=exercise, checks=checks, note=note)


def _check_result(exercise: str, name: str, entry, plugin: ChecksPlugin, outcomes: dict, note: str,
                  fail_fast: bool) -> CheckResult:
    key = (exercise, name)
    if key in plugin.not_here:
        outcome = CheckOutcome("skipped", plugin.not_here[key])  # whatever the submission
    else:
        outcome = CheckOutcome("failed", note) if note else outcomes.get(key)
    if outcome is None and fail_fast and key in plugin.descriptions:
        outcome = NOT_RUN
    if outcome is None:
        raise GraderFault(f"the promise {exercise}.{name} has no judge: no check_{name} in "
                          f"grader/exercises/{exercise}/check_{exercise}.py")
    message = outcome.message
    if outcome.status not in ("passed", "skipped") and not note:
        message = f"{message}\nWhere to look: {where_to_look(exercise)}."
    return CheckResult(
        name=name, exercise=exercise, status=outcome.status,
        score=entry.points if outcome.status == "passed" else 0.0, max_score=entry.points,
        message=message, description=plugin.descriptions.get(key, ""), visibility=entry.visibility,
        output=outcome.output, duration_s=round(outcome.duration_s, 3),
    )
