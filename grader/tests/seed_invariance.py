"""Running the checks of one exercise under several seeds, for many answers, in one sandbox.

What grader/tests/test_seed_invariance.py needs, cheaply: a full grading per
answer and seed would cost minutes. A check's inputs depend on the seed only
through ``ctx.rng`` (support.Context.rng), so a check that never calls it on
the reference gives every seed the same verdict; only the seeded checks are
run again. One sandbox serves all the answers of an exercise: its copy of
the exercise file is replaced between answers (each probe is a fresh child
that imports the file anew; the zygote and its forkserver import torch and
NumPy only). That replacement is a test's shortcut, never the grader's: a
grading of record copies the submission once and never writes into it.

The checks are called as plain functions with a fresh :class:`Context` per
answer and seed. The shared probes (support.shared_probe) of one answer are
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
from grader.engine.checks.support import CheckFailed, Context, ProbeProblem
from grader.engine.runner import CPU_MEMORY_MB, PROBE_MODULES
from grader.registry import CONTRACT_FILES
from grader.sandbox import Sandbox
from grader.shared.common import SUBMISSION_PACKAGE


@dataclass
class RecordingContext(Context):
    """A Context that notes which checks draw from the seed (call ``rng``)."""

    seeded: set = field(default_factory=set)

    def rng(self, name):
        self.seeded.add(self.current)
        return super().rng(name)


def check_functions(exercise: str) -> dict:
    """{check name: function} of the exercise's check module, without the checks of a GPU (this runner has none)."""
    module = importlib.import_module(f"grader.engine.checks.check_{exercise}")
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
