"""Running the checks of one exercise under several seeds, for many answers, in one sandbox.

The same code gets the same verdicts under any seed, and that is shown
cheaply: a full grading per answer and seed would cost minutes. A check's
inputs depend on the seed only through ``ctx.rng`` (checking.Context.rng), so
a check that never calls it on the reference gives every seed the same
verdict; only the seeded checks are run again. The reference's run under
the first of :data:`SEEDS` (:func:`reference_run`, made once per test run)
says which checks are seeded, and grader/tests/test_seed_invariance.py
judges it; every wrong answer's grading in grader/tests/test_corpus_answers.py
is its verdicts under that seed, and :func:`seed_differences` adds the
others. One sandbox serves all the answers of an exercise: its copy of
the exercise file is replaced between answers (each probe is a fresh child
that imports the file anew; the zygote and its forkserver import torch and
NumPy only). That replacement is a test's shortcut, never the grader's: a
grading of record copies the submission once and never writes into it.

The checks are called as plain functions with a fresh :class:`Context` per
answer and seed. The shared probes (checking.shared_probe) of one answer are
kept across its seeds: a probe asked again with the same arguments (a
boundary's, which no seed changes) gives what it gave, as in one grading.
"""

from __future__ import annotations

import importlib
import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from grader import registry
from grader.engine.checking import CheckFailed, Context, ProbeProblem
from grader.engine.plugin import NOT_RUN_AFTER_TIMEOUT
from grader.engine.runner import CPU_MEMORY_MB, PROBE_MODULES
from grader.registry import CONTRACT_FILES
from grader.sandbox import Sandbox
from grader.shared.common import SUBMISSION_PACKAGE
from grader.tests.once_per_run import once

SEEDS = (4, 1_000_003, 2**31 - 1)
"""Three seeds; the first is the one every corpus answer is graded with (test_corpus_answers.SEED)."""


@dataclass
class RecordingContext(Context):
    """A Context that notes which checks draw from the seed (call ``rng``)."""

    seeded: set = field(default_factory=set)

    def rng(self, name):
        self.seeded.add(self.current)
        return super().rng(name)


def check_functions(exercise: str) -> dict:
    """{check name: function} of the exercise's check module, without the checks of a GPU (this runner has none)."""
    module = importlib.import_module(f"grader.exercises.{exercise}.check_{exercise}")
    return {name: fn for name, fn in vars(module).items()
            if name.startswith("check_") and callable(fn) and getattr(fn, "runs_only", ("cpu",))[0] == "cpu"}


def verdict(ctx: Context, name: str, function) -> str:
    """'passed', 'failed', or the ProbeProblem's status ('error', 'timeout') of one check."""
    ctx.begin_check(name)
    try:
        function(ctx)
    except CheckFailed:
        return "failed"
    except ProbeProblem as problem:
        return problem.status
    return "passed"


class OneSandbox:
    """A sandbox over the reference solutions whose copy of ``exercise``'s file can be replaced (see the module docstring)."""

    def __init__(self, solutions: Path, exercise: str):
        self.exercise = exercise
        self.sandbox = Sandbox(solutions, files=CONTRACT_FILES, probe_modules=PROBE_MODULES, memory_mb=CPU_MEMORY_MB)
        self.target = self.sandbox.code_dir / SUBMISSION_PACKAGE / registry.exercise(exercise).module

    def __enter__(self) -> OneSandbox:
        self.sandbox.__enter__()
        return self

    def __exit__(self, *exc_info) -> None:
        self.sandbox.__exit__(*exc_info)

    def swap_in(self, source: Path) -> None:
        """Make ``source`` the exercise file the next probes import."""
        mode = stat.S_IMODE(self.target.stat().st_mode)
        os.chmod(self.target, mode | stat.S_IWUSR)
        self.target.write_bytes(source.read_bytes())
        os.chmod(self.target, mode)

    def verdicts(self, seed: int, only=None, shared=None) -> tuple[dict[str, str], RecordingContext]:
        """{check name: verdict} of the exercise's checks (``only`` those names) under ``seed``, and the context.

        ``shared``: a dict kept across the calls of one answer, holding the
        results of its shared probes by their arguments.
        """
        ctx = RecordingContext(sandbox=self.sandbox, seed=seed)
        if shared is not None:
            ctx.__dict__["_shared_probes"] = shared
        checks = check_functions(self.exercise)
        return {name: verdict(ctx, name, fn) for name, fn in checks.items() if only is None or name in only}, ctx


def reference_run(solutions: Path, exercise: str) -> dict:
    """The reference's checks of ``exercise`` under ``SEEDS[0]``, run once per test run (the same JSON for every worker).

    ``{"verdicts": {check: verdict}, "seeded": [the checks that called ctx.rng], "boundaries_run": {check: [its
    boundaries]}}``; check names keep their ``check_`` prefix.
    """
    def make(_folder: Path) -> dict:
        with OneSandbox(solutions, exercise) as box:
            verdicts, ctx = box.verdicts(SEEDS[0])
        return {"verdicts": verdicts, "seeded": sorted(ctx.seeded),
                "boundaries_run": {check: sorted(names) for check, names in ctx.boundaries_run.items()}}

    return once(f"seed-reference-{exercise}", make)


def seed_differences(box: OneSandbox, seeded: list[str], graded: dict) -> list[str]:
    """The seeded checks whose verdict differs between the answer's grading and its checks under the other seeds.

    ``box`` holds the answer's file; ``graded`` is ``{check name without check_: (status, message)}`` of its grading
    under ``SEEDS[0]``. A check that grading did not run itself (skipped, or not run after a timeout) is run here
    under ``SEEDS[0]`` as well. Returns one text per differing check: its name and its verdict under each seed.
    """
    first, again = {}, []
    for check in seeded:
        status, message = graded[check.removeprefix("check_")]
        if status == "skipped" or message.startswith(NOT_RUN_AFTER_TIMEOUT):
            again.append(check)
        else:
            first[check] = status
    shared = {}
    if again:
        first.update(box.verdicts(SEEDS[0], again, shared)[0])
    runs = [first] + [box.verdicts(seed, seeded, shared)[0] for seed in SEEDS[1:]]
    return [f"{check}: {[run[check] for run in runs]}" for check in seeded if len({run[check] for run in runs}) > 1]
