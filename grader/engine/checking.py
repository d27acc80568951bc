"""What the checks use: the grading context, probe calls, and feedback messages.

A check fails by raising :class:`CheckFailed` (via :func:`expect`) with a
message for the student: what was expected, what came back, on the smallest
input that shows it, and where in the handout to look.
"""

from __future__ import annotations

import math
import re
import time
import zlib
from dataclasses import dataclass, field

import numpy as np

from grader import registry
from grader.engine import promise_states
from grader.sandbox import Sandbox
from grader.shared.common import probe_module

#: Workers per pool, by start method. fork and forkserver pools are cheap (a fork of
#: a preloaded process; the sandbox shares one forkserver per grading), and a
#: forkserver worker receives the dataset and collate function pickled and imports
#: the submission itself, as a spawn worker does. A spawn worker is a fresh
#: interpreter importing torch (a second or two), so spawn runs only where it is
#: what a check proves (pad_collate and TokenWindows in a new interpreter), with one worker.
POOL_WORKERS = {"fork": 2, "forkserver": 2, "spawn": 1}
START_METHODS = ("fork", "forkserver", "spawn")
#: The start methods of checks where spawn proves nothing that forkserver does not.
FORKING_METHODS = ("fork", "forkserver")
#: Time limits of one probe (seconds), before ``Context.timeout_scale``.
IN_PROCESS_TIMEOUT_S = 30.0
WORKER_TIMEOUT_S = 60.0
#: The most time one check may spend running the student's code (three worker probes), before
#: ``Context.timeout_scale``. The runner stops a check at its budget itself; the per-check limit of
#: pytest-timeout (grader/engine/checks_pytest.ini) is only the backstop.
CHECK_BUDGET_S = 3 * WORKER_TIMEOUT_S
#: The most time all the checks of one exercise may spend running the student's code, before ``timeout_scale``
#: (the reference's checks take about 3 s an exercise on a quiet machine): an answer that is slow or costly at every
#: call (a result hundreds of MB wide, say) costs its exercise a bounded time, whatever the number of cases.
EXERCISE_BUDGET_S = WORKER_TIMEOUT_S
MAX_FLAGS_PER_CHECK = 24
#: The error type of an answer refused for its size in bytes (grader.inside.encode, grader.inside.probe_wait).
RESULT_TOO_LARGE = "ResultTooLarge"
#: The standard library's resource tracker, at a probe's end, reporting semaphores that DataLoader worker processes
#: left behind when the loader shut them down: whether it does depends on timing, never on the student's code, and
#: the same files must get the same report (its warning line and the source line Python prints under it).
_SHUTDOWN_NOISE = re.compile(r"^[^\n]*resource_tracker\.py:\d+: UserWarning: resource_tracker: There appear to be \d+ "
                             r"leaked \w+ objects to clean up at shutdown\n(?:[ \t]+warnings\.warn\([^\n]*(?:\n|$))?", re.MULTILINE)


def without_shutdown_noise(output: str) -> str:
    """``output`` (a probe's captured stdout and stderr) without the resource tracker's reports of leaked objects."""
    return _SHUTDOWN_NOISE.sub("", output)


def runs_only(where, reason):
    """Decorate a check that runs only where CUDA is (``where`` "gpu") or only where it is not ("cpu"): elsewhere
    the runner reports it "not run" with ``reason``, whatever the submission (an unfinished one included)."""
    def mark(check):
        check.runs_only = (where, reason)
        return check

    return mark


ON_GPU = runs_only("gpu", "no CUDA device here: pin_memory checks run on a GPU runner (--gpu on)")
WITHOUT_GPU = runs_only("cpu", "a CUDA device is here: the pin_memory check on the GPU runs instead")

def where_to_look(exercise):
    """The handout sections and docstrings a student should read for ``exercise`` (from lab.toml)."""
    entry = registry.exercise(exercise)
    return f"{entry.pointer}; {entry.hint}"


class CheckFailed(AssertionError):
    """The submission broke a promise of its docstring; the message is the student's feedback."""


class ProbeProblem(Exception):
    """The probe did not return data: the student's code raised, hung or crashed.

    ``status`` is the check status it maps to ("failed" for an unfinished
    stub, "error", or "timeout"); ``output`` is the student's captured output;
    ``cause`` is the probe's :attr:`~grader.shared.messages.ProbeResult.cause`
    ("killed", "died" or ""), which decides a confirmation, never the message.
    """

    def __init__(self, status, message, output="", cause="", oversized=False):
        super().__init__(message)
        self.status = status
        self.output = output
        self.cause = cause
        self.oversized = oversized  # the answer was refused for its size in bytes (see ChecksPlugin)


def expect(condition, message):
    """Fail the check with ``message`` unless ``condition`` holds."""
    if not condition:
        raise CheckFailed(message)


def show(value, limit=300):
    """A value as the student would write it, cut to ``limit`` characters."""
    text = repr(value)
    return text if len(text) <= limit else text[: limit - 15] + " ...(cut)"


@dataclass
class Context:
    """Everything a check needs from the grading run (one per run, shared by all checks).

    Integrity flags are kept as ordered sets (dicts with None values), so a
    submission that raises thousands of flags costs linear time, and at most
    :data:`MAX_FLAGS_PER_CHECK` are kept per check.
    """

    sandbox: Sandbox
    seed: int
    outputs: dict = field(default_factory=dict)  # check nodeid -> captured student output
    flags: dict = field(default_factory=dict)  # every Flag seen so far, in order (values None)
    flags_by_check: dict = field(default_factory=dict)  # check nodeid -> {Flag: None} its probes raised
    current: str = ""  # nodeid of the running check
    use_gpu: bool = False  # run the pin_memory checks on CUDA (else their CPU counterparts)
    timeout_scale: float = 1.0  # every probe's time limit is multiplied by it (grade --timeout-scale)
    check_deadline: float = math.inf  # time.monotonic() at which the running check's budget ends
    exercise_deadlines: dict = field(default_factory=dict)  # exercise -> time.monotonic() its budget ends
    exercise: str = ""  # the running check's exercise ("" when the caller named none: no exercise budget)
    boundaries_run: dict = field(default_factory=dict)  # check nodeid -> {boundary name: None} it ran (see boundaries())
    states_run: dict = field(default_factory=dict)  # check nodeid -> {state: None} its promises speak for (see states())

    def begin_check(self, nodeid, exercise=""):
        """Start the budget of check ``nodeid``: :data:`CHECK_BUDGET_S` times ``timeout_scale`` seconds, or what is
        left of its ``exercise``'s :data:`EXERCISE_BUDGET_S` (counted from that exercise's first check) if less."""
        now = time.monotonic()
        self.current, self.exercise = nodeid, exercise
        self.check_deadline = now + CHECK_BUDGET_S * self.timeout_scale
        if exercise:
            ends = self.exercise_deadlines.setdefault(exercise, now + EXERCISE_BUDGET_S * self.timeout_scale)
            self.check_deadline = min(self.check_deadline, ends)

    def restart_budgets(self):
        """Give every exercise a fresh budget (a confirmation runs its checks again, alone)."""
        self.exercise_deadlines.clear()

    def _budget_spent(self) -> str:
        """The message of a check whose budget (its own or its exercise's) is spent."""
        if self.exercise and self.check_deadline == self.exercise_deadlines.get(self.exercise):
            budget = EXERCISE_BUDGET_S * self.timeout_scale
            return (f"timed out: the checks of {self.exercise} used up the exercise's time budget of {budget:.0f} s "
                    "running your code. Look for code that is slow at every call (an infinite loop, a blocking call, "
                    "a result far larger than the docstring says).")
        budget = CHECK_BUDGET_S * self.timeout_scale
        return (f"timed out: this check used up its time budget of {budget:.0f} s running your code. Look for an "
                "infinite loop, a worker that never returns, or a blocking call.")

    def rng(self, name):
        """A NumPy Generator for one check, a pure function of the run seed and the check's name."""
        return np.random.default_rng([self.seed, zlib.crc32(name.encode())])

    def boundaries(self, **cases):
        """The values of ``cases`` (boundary name = input), in order, recorded as run by the current check.

        A boundary is an input that decides a promise whatever the seed (the
        end of a range, a remainder, the empty and the single, a dtype's
        limit, a sentinel value): every grading runs it besides the seeded
        random inputs. The contract table lists each promise's boundaries
        by these names; ``python -m grader check`` fails when a listed one
        is not passed here by one of the promise's checks, and
        grader/tests/test_seed_invariance.py when a check passes one it
        does not run.
        """
        ran = self.boundaries_run.setdefault(self.current, {})
        for name in cases:
            ran.setdefault(name, None)
        return list(cases.values())

    def states(self, exercise):
        """The later states (grader.shared.states.LATER_STATES) that the running check's promise speaks for, in order.

        Read from the ``states`` field of its entry in ``exercise``'s promise
        file (grader.engine.promise_states; no field: all of them), recorded
        as run by the current check. A check that crosses its object with
        states asks here which, so that the promise's entry decides it.
        """
        name = self.current.rpartition("::")[2]
        found = promise_states.states_by_check(exercise).get(name, promise_states.LATER_STATES)
        self.states_run.setdefault(self.current, {}).update(dict.fromkeys(found))
        return found

    def run_probe(self, probe: str, timeout=IN_PROCESS_TIMEOUT_S, *, case="", flags_out=None, **args):
        """Run the probe ``probe`` ("<module>:<function>": ``collate:basic``, ``common:load``; see grader.shared.common.probe_module) in the sandbox.

        Returns the whole ProbeResult, or raises ProbeProblem. The run's
        integrity flags count for the current check; ``flags_out``, a list,
        also receives every one of them (for :func:`shared_run_probe`).

        ``case`` names the input in words ("on an empty token file"); a
        ProbeProblem's message then starts with it. The probe gets
        ``timeout * timeout_scale`` seconds, or what is left of the check's
        budget (:meth:`begin_check`) if that is less; a check whose budget is
        spent gets a "timeout" ProbeProblem without running anything.
        """
        timeout *= self.timeout_scale
        remaining = self.check_deadline - time.monotonic()
        if remaining < 1:
            raise ProbeProblem("timeout", self._budget_spent())
        cut = remaining < timeout
        timeout = min(timeout, remaining)
        module, _, function = probe.partition(":")
        result = self.sandbox.run(f"{probe_module(module)}:{function}", args, timeout=timeout)
        if output := without_shutdown_noise(result.output or ""):
            self.outputs[self.current] = (self.outputs.get(self.current, "") + output)[-2000:]
        seen = self.flags_by_check.setdefault(self.current, {})
        for flag in result.flags:
            if flags_out is not None:
                flags_out.append(flag)
            if len(seen) < MAX_FLAGS_PER_CHECK:
                seen.setdefault(flag, None)
                self.flags.setdefault(flag, None)
        if result.status == "ok":
            return result
        if result.status == "timeout" and cut:
            raise ProbeProblem("timeout", self._budget_spent(), result.output)
        raise problem_from(result, timeout, case)

    def probe(self, probe: str, timeout=IN_PROCESS_TIMEOUT_S, *, case="", **args):
        """Run the probe ``probe`` ("<module>:<function>") in the sandbox; return its data or raise ProbeProblem (see run_probe)."""
        return self.run_probe(probe, timeout, case=case, **args).data


# A stub's message, as the stubs raise it ("collate.py: pad_collate is not implemented yet ...").
# Possessive quantifiers and the lookbehind make the search linear: a match starts only where a name
# starts and never gives characters back (a backtracking [\w.]+ took seconds on a 40,000-letter word).
_STUB_MESSAGE = re.compile(r"(?<![\w.])[\w.]++: [\w.]++ is not implemented yet[^\n]*+")


def problem_from(result, timeout, case=""):
    """Turn a failed ProbeResult into the ProbeProblem a student can act on (prefixed by ``case``, the input in words)."""
    on = f"{case[:1].upper()}{case[1:]}: " if case else ""
    if result.status == "timeout":
        where = f"\n{result.traceback.strip()}" if result.traceback.strip() else ""
        return ProbeProblem("timeout", f"{on}timed out: no result within {timeout:.0f} s. Look for an infinite loop, "
                            f"a worker that never returns, or a blocking call.{where}", result.output)
    if result.status == "error" and result.error_type == "NotImplementedError":
        stub = _STUB_MESSAGE.search(result.error)  # also found inside a DataLoader worker's wrapped error
        text = stub.group(0) if stub else result.error.removeprefix("NotImplementedError:").strip()
        return ProbeProblem("failed", f"not implemented yet: {text}", result.output)
    if result.status == "error" and result.error_type == RESULT_TOO_LARGE:
        return ProbeProblem("error", f"{on}your code returned a result larger than the grader reads "
                            f"({result.error.removeprefix(RESULT_TOO_LARGE + ':').strip()}): return what the docstring "
                            "says, of the shape it says", result.output, oversized=True)
    if result.status == "error":
        where = f"\n{result.traceback.strip()}" if result.traceback else ""
        return ProbeProblem("error", f"{on}your code raised {result.error}{where}", result.output, result.cause)
    return ProbeProblem("error", f"{on}the process running your code died: {result.error}", result.output, result.cause)



def shared_probe(ctx, function, timeout=IN_PROCESS_TIMEOUT_S, *, case="", **args):
    """The data of ``ctx.probe(function, timeout, case=case, **args)``, run once per grading for the same arguments.

    Several checks that each judge their own promise can read one probe's
    data (one DataLoader pool serves the checks of three RNGs): the first
    check that asks runs the probe, later ones get the same data, or the
    same ProbeProblem, without running the student's code again. The
    integrity flags of that run count for every check that reads it.
    """
    return shared_run_probe(ctx, function, timeout, case=case, **args).data


def shared_run_probe(ctx, function, timeout=IN_PROCESS_TIMEOUT_S, *, case="", **args):
    """Like :func:`shared_probe`, but the whole ProbeResult (with what the zygote measured, such as peak memory)."""
    cache = ctx.__dict__.setdefault("_shared_probes", {})
    key = (function, repr(sorted(args.items())))
    if key not in cache:
        # This run's own flags, even those the asking check already had from another probe: every later reader
        # gets them too.
        flags = []
        try:
            cache[key] = ("ok", ctx.run_probe(function, timeout, case=case, flags_out=flags, **args))
        except ProbeProblem as problem:
            cache[key] = ("problem", problem)
        cache[key] += (flags[:MAX_FLAGS_PER_CHECK],)
    state, value, flags = cache[key]
    seen = ctx.flags_by_check.setdefault(ctx.current, {})
    for flag in flags:
        if len(seen) < MAX_FLAGS_PER_CHECK:
            seen.setdefault(flag, None)
    if state == "problem":
        raise value
    return value
