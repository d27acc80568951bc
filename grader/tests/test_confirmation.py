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
#: A second check of the same grading, whose probe is made to end by SIGKILL once (cause "killed", the out-of-memory
#: killer's signal): it too is pending on a quiet machine and passes on confirmation.
KILLED = "len_is_the_number_of_batches"


@pytest.fixture(scope="module")
def pending_and_confirmed():
    """(the result with the injected timeout pending, the same result once confirmed alone)."""
    injected = []

    def time_out_once(key, outcome):
        if key == (EXERCISE, CHECK) and key not in injected:
            injected.append(key)
            return CheckOutcome("timeout", "timed out: no result within 30 s (injected by the test)",
                                duration_s=outcome.duration_s)
        if key == (EXERCISE, KILLED) and key not in injected:
            injected.append(key)
            return CheckOutcome("error", "the process running your code died: killed by signal 9 (SIGKILL) (injected "
                                "by the test)", duration_s=outcome.duration_s, cause="killed")
        return outcome

    first = runner.grade(REPO / "solutions", seed=11, only=[EXERCISE], fault=time_out_once, confirm="later")
    assert len(injected) == 2, "a fault was never injected: its check did not run"
    return first, runner.confirm_pending(first, REPO / "solutions")


def _check(result: GradeResult) -> CheckResult:
    return next(c for c in result.all_checks() if (c.exercise, c.name) == (EXERCISE, CHECK))


@pytest.mark.slow
def test_a_timeout_is_pending_until_confirmed(pending_and_confirmed):
    first, _ = pending_and_confirmed
    check = _check(first)
    assert (check.status, check.confirmation, check.score) == ("timeout", "pending", 0.0)
    assert sorted(c.name for c in first.confirmations("pending")) == sorted([CHECK, KILLED]), \
        "only the checks that timed out or were killed wait, on a machine nobody else loads"
    row = next(iter(_gradebook([first])))
    assert (row["unconfirmed"], row["confirmed_alone"]) == ("2", "0")


def test_a_check_that_timed_out_once_passes_on_confirmation(pending_and_confirmed):
    first, confirmed = pending_and_confirmed
    check = _check(confirmed)
    assert (check.status, check.confirmation, check.score) == ("passed", "passed", check.max_score)
    assert "passed on confirmation" in check.message and "The first run ended timeout: timed out" in check.message
    assert confirmed.score == confirmed.max_score and confirmed.seed == first.seed
    assert "confirmation" in confirmed.phases and not confirmed.confirmations("pending")
    killed = next(c for c in confirmed.all_checks() if c.name == KILLED)
    assert (killed.status, killed.confirmation) == ("passed", "passed") and "ended error" in killed.message
    others = [c for c in confirmed.all_checks() if c.name not in (CHECK, KILLED)]
    assert others == [c for c in first.all_checks() if c.name not in (CHECK, KILLED)], "the other verdicts are kept"
    assert GradeResult.from_dict(json.loads(json.dumps(confirmed.to_dict()))) == confirmed
    row = next(iter(_gradebook([confirmed])))
    assert (row["unconfirmed"], row["confirmed_alone"]) == ("0", "2")
    assert "2 passed on confirmation" in class_summary_markdown([("ada", confirmed, "")])


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


@pytest.mark.parametrize("status, cause, overloaded, needed", [
    ("timeout", "", False, True),
    ("failed", "", False, False),
    ("failed", "", True, False),
    ("error", "", True, False),  # an exception the code raised, whatever its text says (a DataLoader timeout's too)
    ("error", "killed", False, True),  # SIGKILL: the out-of-memory killer's signal, on a quiet machine too
    ("error", "died", True, True),
    ("error", "died", False, False),
    ("passed", "killed", True, False),
    ("skipped", "", True, False),
])
def test_which_verdicts_are_confirmed(status, cause, overloaded, needed):
    assert confirm.needs_confirmation(status, cause, overloaded) is needed


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


# ------------------------------------------------ what triggers a confirmation: statuses, never a message's text


def _answer(tmp_path, name: str, replacement: str):
    """A submission folder: the reference's files, with ``replacement`` appended to collate.py (it redefines
    pad_collate)."""
    folder = tmp_path / name
    folder.mkdir()
    for path in (REPO / "solutions").glob("*.py"):
        text = path.read_text()
        (folder / path.name).write_text(text + replacement if path.name == "collate.py" else text)
    return folder


SPOOFED_TIMEOUT = '''

def pad_collate(batch, pad_id=None):
    raise RuntimeError("DataLoader timed out after 5 seconds")
'''

@pytest.mark.slow
def test_a_message_that_reads_like_a_timeout_is_an_ordinary_error(tmp_path):
    """A pad_collate that raises the DataLoader's timeout sentence fails as an error it raised: nothing is left
    pending, nothing is rerun, and the gradebook counts no confirmation (issue 47, finding 4)."""
    result = runner.grade(_answer(tmp_path, "spoof", SPOOFED_TIMEOUT), seed=11, only=["collate"], confirm="later",
                          measure_throughput=False)
    checks = [c for c in result.all_checks() if c.status != "skipped"]
    assert checks and all(c.status in ("error", "failed") for c in checks), {c.name: c.status for c in checks}
    assert any("DataLoader timed out" in c.message for c in checks), "the student's own text is still shown"
    assert not result.confirmations("pending"), [c.name for c in result.confirmations("pending")]


@pytest.mark.workers
def test_a_kill_is_a_cause_set_outside_the_students_text():
    """The probe's own process ended by SIGKILL (the zygote's wait status) and a DataLoader worker ended by SIGKILL
    (the workers' exit codes, read by the probe's loader call) both come back as cause "killed"; an exception whose
    text says "DataLoader timed out" has no cause and no timeout status."""
    from grader.sandbox import Sandbox
    from grader.tests.test_sandbox import PROBES, probe

    with Sandbox(REPO / "solutions", probe_modules=(PROBES, "grader.inside.probes.common")) as box:
        itself, worker, sentence = (box.run(probe(name), {}, timeout=30) for name in (
            "kills_itself", "worker_killed", "raises_a_dataloader_timeout_sentence"))
    assert (itself.status, itself.cause) == ("crashed", "killed"), itself
    assert (worker.status, worker.cause) == ("error", "killed") and "worker" in worker.error, worker
    assert (sentence.status, sentence.cause) == ("error", ""), sentence
    assert not confirm.needs_confirmation("error", sentence.cause, overloaded=False)


@pytest.mark.slow
@pytest.mark.workers
def test_batch_measures_the_throughput_once_its_tokens_checks_are_confirmed(tmp_path):
    """``batch``'s path (``confirm="later"``, then :func:`runner.confirm_pending`) gives a right answer whose tokens
    check timed out once the report ``grade`` gives it: the figure is measured after the confirmation, alone, and the
    rubric's throughput check judged on it (issue 47, finding 3: it was recorded failed for good)."""
    from grader.engine import throughput
    from grader.engine.rubric import load_throughput_rule

    rubric = tmp_path / "rubric.toml"  # a course's term file: only the throughput table, every check as shipped
    rubric.write_text('[throughput]\npoints = 2\nlevel = "whole batches"\nthreshold = 0.01\n')
    rule = load_throughput_rule(rubric)
    injected = []

    def time_out_once(key, outcome):
        if key[0] == "tokens" and not injected:
            injected.append(key)
            return CheckOutcome("timeout", "timed out (injected by the test)", duration_s=outcome.duration_s)
        return outcome

    first = runner.grade(REPO / "solutions", seed=11, only=["tokens"], fault=time_out_once, confirm="later",
                         rubric_path=rubric)
    assert injected and throughput.awaits_confirmation(first.throughput), first.throughput
    confirmed = runner.confirm_pending(first, REPO / "solutions", rubric_path=rubric)
    assert confirmed.throughput["status"] == "measured", confirmed.throughput
    judged = [c for c in confirmed.all_checks() if c.name == rule.check_name]
    assert len(judged) == 1 and judged[0].status == "passed", judged
    assert confirmed.score == confirmed.max_score, [(c.name, c.status) for c in confirmed.all_checks() if not c.passed]
