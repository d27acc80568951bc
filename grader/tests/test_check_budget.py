"""Each check's time budget, and a check stopped in the middle of a probe (row 2 of the receiving-end issue).

* The runner stops a check at its own budget (``checking.CHECK_BUDGET_S`` times
  the timeout scale); pytest-timeout's per-check limit (grader/engine/checks_pytest.ini) is
  only the backstop above it, and ``--timeout-scale`` is refused where the
  budget would not fit below it.
* When the backstop fires while a probe runs, the zygote is stopped, so its
  late answer is never read as the answer to a later check: the checks after
  it are judged on their own data.
"""

from __future__ import annotations

import shutil
import time

import pytest

from grader.engine.checking import CHECK_BUDGET_S, EXERCISE_BUDGET_S, Context, ProbeProblem
from grader.engine.runner import check_time_limit_s, grade, timeout_scale_problem
from grader.paths import REPO
from grader.registry import CONTRACT_FILES, EXERCISES
from grader.sandbox.host import ANSWER_GRACE
from grader.shared.messages import ProbeResult

#: Appended to the reference bucketing.py: len() answers the preflight's batch_size=1 at once and hangs otherwise.
#: (pytest runs check files by name: bucketing's checks run before collate's, which must then get their own data.)
SLOW_LEN = """

import time as _time

_reference_len = BucketBatchSampler.__len__


def _slow_len(self):
    if self.batch_size > 1:
        _time.sleep(40)
    return _reference_len(self)


BucketBatchSampler.__len__ = _slow_len
"""


class FakeSandbox:
    """Answers every probe at once and records the time limit it was given."""

    def __init__(self):
        self.timeouts = []

    def run(self, probe, args, timeout):
        self.timeouts.append(timeout)
        return ProbeResult("ok", data=None)


def test_a_probe_gets_at_most_what_is_left_of_its_checks_budget():
    box = FakeSandbox()
    ctx = Context(sandbox=box, seed=0, timeout_scale=2.0)
    ctx.begin_check("check_a")
    ctx.run_probe("collate:x", timeout=30)
    assert box.timeouts == [60.0]
    ctx.check_deadline = time.monotonic() + 10  # most of the budget spent
    ctx.run_probe("collate:x", timeout=30)
    assert 9 <= box.timeouts[-1] <= 10
    ctx.check_deadline = time.monotonic()  # all of it
    with pytest.raises(ProbeProblem, match="used up its time budget of 360 s") as problem:
        ctx.run_probe("collate:x", timeout=30)
    assert problem.value.status == "timeout" and len(box.timeouts) == 2
    ctx.begin_check("check_b")  # the next check has its own budget
    ctx.run_probe("collate:x", timeout=30)
    assert box.timeouts[-1] == 60.0


def test_the_checks_of_one_exercise_share_a_budget_whatever_their_number():
    """An answer costly at every call costs its exercise at most EXERCISE_BUDGET_S (times the scale), however many
    checks and cases the exercise has; the next exercise, and a confirmation, start afresh (issue 47, item 7)."""
    box = FakeSandbox()
    ctx = Context(sandbox=box, seed=0, timeout_scale=0.5)
    ctx.begin_check("check_a", "collate")
    ctx.run_probe("collate:x", timeout=60)
    assert box.timeouts == [pytest.approx(EXERCISE_BUDGET_S * 0.5, abs=0.1)]
    ctx.exercise_deadlines["collate"] = time.monotonic() + 5  # most of the exercise's budget spent
    ctx.begin_check("check_b", "collate")
    ctx.run_probe("collate:x", timeout=30)
    assert 4 <= box.timeouts[-1] <= 5, "a later check of the exercise gets only what is left"
    ctx.exercise_deadlines["collate"] = time.monotonic()
    ctx.begin_check("check_c", "collate")
    with pytest.raises(ProbeProblem, match="the checks of collate used up the exercise's time budget") as problem:
        ctx.run_probe("collate:x", timeout=30)
    assert problem.value.status == "timeout" and len(box.timeouts) == 2
    ctx.begin_check("check_d", "tokens")  # another exercise has its own
    ctx.run_probe("tokens:x", timeout=10)
    assert box.timeouts[-1] == 5.0
    ctx.restart_budgets()
    ctx.begin_check("check_e", "collate")
    ctx.run_probe("collate:x", timeout=10)
    assert box.timeouts[-1] == 5.0


def test_every_accepted_timeout_scale_fits_below_the_backstop():
    limit = check_time_limit_s()
    assert limit == 600
    assert timeout_scale_problem(3.0) == "" and CHECK_BUDGET_S * 3.0 + ANSWER_GRACE < limit
    assert "from 0.1 to 3" in timeout_scale_problem(3.5)


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_checks_after_one_stopped_mid_probe_are_judged_on_their_own_data(tmp_path):
    submission = tmp_path / "submission"
    submission.mkdir()
    for name in CONTRACT_FILES:
        shutil.copyfile(REPO / "solutions" / name, submission / name)
    with (submission / "bucketing.py").open("a") as fh:
        fh.write(SLOW_LEN)
    slow = "bucketing"  # its len() hangs (SLOW_LEN)
    judged = next(e for e in sorted(EXERCISES) if e > slow)  # pytest runs check files by name: this one's run after
    # 25 s a check: room for the zygote restart after the stopped probe (torch preloaded again) on a loaded runner.
    # confirm="later": the stopped check's confirmation (another 25 s alone) is test_confirmation.py's subject, not this one's.
    result = grade(submission, seed=3, only=[judged, slow], check_time_limit_s=25, confirm="later")
    collate, bucketing = result.exercise(judged), result.exercise(slow)
    statuses = {c.name: c.status for c in bucketing.checks}
    assert statuses["rejects_sizes_below_one"] == "passed" and statuses["len_is_the_number_of_batches"] == "timeout", statuses
    assert all(c.status in ("passed", "skipped") for c in collate.checks), [
        (c.name, c.status, c.message[:300]) for c in collate.checks]
    assert collate.score == collate.max_score
