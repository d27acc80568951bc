"""A timeout is never final until confirmed alone (grader/docs/DESIGN.md principle 5; grader.engine.confirm).

The rule itself, on the reference: a check made to time out once (a fault
injected through ``grade(fault=...)``, the grader sleeps nowhere) is left
pending by ``grade(confirm="later")`` (what ``batch`` asks for), a row
holding it is graded again by ``batch`` even without ``--force``, and
:func:`~grader.engine.runner.confirm_pending` runs it again alone: it passes
on confirmation, the report says so, and every writer shows a plain pass.
The class of 30 (test_class_of_30.py) proves the rest: a CPU hog beside its
classmates at ``--jobs 2`` changes none of their rows.
"""

from __future__ import annotations

import json
import xml.etree.ElementTree as ET

import pytest

from grader.engine import confirm, provenance, runner
from grader.engine.plugin import CheckOutcome
from grader.engine.results import CheckResult, ExerciseResult, GradeResult
from grader.paths import REPO
from grader.tools.class_grading import grade_class as batch
from grader.writers import class_summary_markdown, gradebook_csv, to_console, to_gradescope, to_junit
from grader.writers.classroom50 import classroom50_result

EXERCISE, CHECK = "bucketing", "rejects_sizes_below_one"


@pytest.fixture(scope="module")
def pending_and_confirmed():
    """(the result with the injected timeout pending, the same result once confirmed alone)."""
    injected = []

    def time_out_once(key, outcome):
        if key == (EXERCISE, CHECK) and not injected:
            injected.append(key)
            return CheckOutcome("timeout", "timed out: no result within 30 s (injected by the test)",
                                duration_s=outcome.duration_s)
        return outcome

    first = runner.grade(REPO / "solutions", seed=11, only=[EXERCISE], fault=time_out_once, confirm="later")
    assert injected, "the fault was never injected: the check did not run"
    return first, runner.confirm_pending(first, REPO / "solutions")


def _check(result: GradeResult) -> CheckResult:
    return next(c for c in result.all_checks() if (c.exercise, c.name) == (EXERCISE, CHECK))


@pytest.mark.slow
def test_a_timeout_is_pending_until_confirmed(pending_and_confirmed):
    first, _ = pending_and_confirmed
    check = _check(first)
    assert (check.status, check.confirmation, check.score) == ("timeout", "pending", 0.0)
    assert [c.name for c in first.confirmations("pending")] == [CHECK], "only the check that timed out waits"
    row = next(iter(_gradebook([first])))
    assert (row["unconfirmed"], row["confirmed_alone"]) == ("1", "0")


def test_a_check_that_timed_out_once_passes_on_confirmation(pending_and_confirmed):
    first, confirmed = pending_and_confirmed
    check = _check(confirmed)
    assert (check.status, check.confirmation, check.score) == ("passed", "passed", check.max_score)
    assert "passed on confirmation" in check.message and "The first run ended timeout: timed out" in check.message
    assert confirmed.score == confirmed.max_score and confirmed.seed == first.seed
    assert "confirmation" in confirmed.phases and not confirmed.confirmations("pending")
    others = [c for c in confirmed.all_checks() if c.name != CHECK]
    assert others == [c for c in first.all_checks() if c.name != CHECK], "the other verdicts are kept as they were"
    assert GradeResult.from_dict(json.loads(json.dumps(confirmed.to_dict()))) == confirmed
    row = next(iter(_gradebook([confirmed])))
    assert (row["unconfirmed"], row["confirmed_alone"]) == ("0", "1")
    assert "1 passed on confirmation" in class_summary_markdown([("ada", confirmed, "")])


def test_a_pass_on_confirmation_looks_like_a_pass_in_every_writer(pending_and_confirmed):
    _, confirmed = pending_and_confirmed
    assert "timeout" not in to_console(confirmed, color=False)
    gradescope = json.loads(to_gradescope(confirmed))
    assert {t["status"] for t in gradescope["tests"]} == {"passed"}
    classroom = classroom50_result(confirmed, {})
    assert all(t["passed"] for t in classroom["tests"]) and classroom["score"] == classroom["max-score"]
    junit = ET.fromstring(to_junit(confirmed))
    assert not [e for e in junit.iter() if e.tag in ("failure", "error")]


def test_batch_grades_again_a_row_with_a_pending_check_or_from_another_grader(pending_and_confirmed, tmp_path):
    first, confirmed = pending_and_confirmed
    (tmp_path / "results").mkdir()
    (tmp_path / "results" / "ada.key").write_text("key")
    for result, kept in ((first, False), (confirmed, True)):
        result.grader_sha256 = provenance.this_grader_hash()
        (tmp_path / "results" / "ada.json").write_text(json.dumps(result.to_dict()))
        assert batch._graded_before(tmp_path, "ada", "key") is kept
    confirmed.grader_sha256 = "0" * 64  # graded by an older grader
    (tmp_path / "results" / "ada.json").write_text(json.dumps(confirmed.to_dict()))
    assert not batch._graded_before(tmp_path, "ada", "key")


@pytest.mark.parametrize("status, message, overloaded, needed", [
    ("timeout", "timed out", False, True),
    ("error", "your code raised RuntimeError: DataLoader timed out after 5 seconds", False, True),
    ("failed", "expected 3, got 4", False, False),
    ("failed", "expected 3, got 4", True, False),
    ("error", "your code raised RuntimeError: no batch today", True, False),
    ("error", "the process running your code died: killed by signal 9 (SIGKILL)", True, True),
    ("error", "the process running your code died: killed by signal 9 (SIGKILL)", False, False),
    ("error", "your code raised RuntimeError: DataLoader worker (pid 12) is killed by signal: Killed.", True, True),
    ("passed", "", True, False),
    ("skipped", "no CUDA device here", True, False),
])
def test_which_verdicts_are_confirmed(status, message, overloaded, needed):
    assert confirm.needs_confirmation(status, message, overloaded) is needed


def _gradebook(results):
    import csv
    import io

    return csv.DictReader(io.StringIO(gradebook_csv([(f"s{i}", r, "") for i, r in enumerate(results)])))


def test_a_pass_on_confirmation_compares_equal_to_a_first_time_pass():
    """Two gradings of the same files, one of which met a loaded machine: the pass that came on confirmation is the
    same grade (regrade and the push workflow's "same files, same report" compare this way); a timeout is not."""
    from grader.tools.class_grading.regrade_diff import comparable

    def report(**check):
        fields = dict(name="same_batches_in_real_workers", exercise="tokens", status="passed", score=1.0, max_score=1.0)
        exercise = ExerciseResult(name="tokens", checks=[CheckResult(**{**fields, **check})])
        return GradeResult(exercises=[exercise], seed=4, duration_s=1.0).to_dict()

    assert comparable(report(confirmation="passed")) == comparable(report())
    assert comparable(report(status="timeout", score=0.0, confirmation="confirmed")) != comparable(report())
