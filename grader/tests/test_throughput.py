"""The grader's throughput figure (grader/engine/throughput.py, grader/docs/throughput.md).

Fast: the judge of a probe's marks (a stretch whose count, sum or stamps do
not fit is refused), the figure's medians, ranges and flags, the rubric's
``[throughput]`` table, the check it adds, the zygote's bound on the marks.

Slow (one sandbox per submission, the measurement alone, no grading): the
reference reads whole batches at least 3 times faster than per item (a
ratio of the same run, never a time); a right answer that widens its batch
token by token in Python (corpus/right/tokens/slow_widening.py) ranks below
the reference; a submission that slows every clock of its own process down
100 times gets the figure the zygote's clock measured, not the one its own
clock would give. The reference's figure in a whole grading (every report)
is judged where the suite grades the reference already
(test_grade_cli.py::test_solutions_score_100_in_every_report).
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import time

import numpy as np
import pytest

from grader.engine import throughput
from grader.engine.results import CheckResult, ExerciseResult, GradeResult
from grader.engine.rubric import RubricError, ThroughputRule, load_throughput_rule
from grader.engine.runner import PROBE_MODULES, _throughput_check
from grader.inside import probe_wait
from grader.paths import REPO
from grader.registry import CONTRACT_FILES
from grader.sandbox import Sandbox
from grader.shared.messages import MAX_MARKS, ProbeResult
from grader.shared.throughput import chained_total, window_starts, x_sums
from grader.shared.token_data import token_data
from grader.tools.authoring import corpus, throughput_noise
from grader.writers import class_summary_markdown, gradebook_csv, gradescope_payload, to_console, to_markdown

BATCH = throughput.SETUP["batch"]
SETUP = throughput.SETUP
WINDOWS = SETUP["tokens"] - SETUP["block"]
SUMS = x_sums(token_data(SETUP["tokens"], np.uint16, throughput.DATA_SEED, SETUP["high"]), SETUP["block"])
ANSWER = 0x0123456789ABCDEF  # the zygote's answer to the start mark, from which the stretch's windows are drawn


def start_mark(name, answer=ANSWER):
    return f"start {name} #{answer:016x}"


def end_mark(name, count, total=None, child_s=0.1):
    if total is None:
        total = chained_total(window_starts(ANSWER, WINDOWS, throughput.SAMPLES), SUMS, count, BATCH, WINDOWS)
    return f"end {name} {count} {total} {child_s} #{1:016x}"


# ---------------------------------------------------------------- the judge of the marks


def test_x_sums_are_the_sums_of_each_windows_x():
    tokens = token_data(SETUP["tokens"], np.uint16, throughput.DATA_SEED, SETUP["high"])
    for start in (0, 17, len(tokens) - 65):
        assert SUMS[start] == int(tokens[start:start + 64].astype(np.int64).sum())


def test_honest_marks_give_rates_by_the_zygotes_stamps():
    marks = [[1.0, start_mark("raw gather")], [1.5, end_mark("raw gather", 640, child_s=0.25)]]
    ((name, (rate, clock)),) = throughput.stretches(marks, ("raw gather",), SUMS).items()
    assert name == "raw gather" and rate == pytest.approx(640 / 0.5) and clock == pytest.approx(0.5)


@pytest.mark.parametrize("marks, why", [
    ([[1.0, start_mark("raw gather")]], "marks for"),
    ([[1.0, start_mark("per item")], [1.5, end_mark("raw gather", 640)]], "expected the marks"),
    ([[1.0, start_mark("raw gather")], [1.5, end_mark("raw gather", 640, total=1)]], "sum to"),
    ([[1.0, start_mark("raw gather", answer=ANSWER + 1)], [1.5, end_mark("raw gather", 640)]], "sum to"),
    ([[1.0, "start raw gather"], [1.5, end_mark("raw gather", 640)]], "expected the marks"),
    ([[1.0, start_mark("raw gather")], [1.5, end_mark("raw gather", 100)]], "100 windows"),
    ([[1.0, start_mark("raw gather")], [1.5, end_mark("raw gather", 0)]], "0 windows"),
    ([[1.0, start_mark("raw gather")], [1.0, end_mark("raw gather", 640)]], "between stamps"),
    ([[1.0, start_mark("raw gather")], [1.5, "end raw gather many 0 0.1 #0000000000000001"]], "unreadable"),
    ([[1.0, start_mark("raw gather")], [1.5, end_mark("raw gather", throughput.SAMPLES + BATCH)]], "windows between"),
])
def test_marks_that_do_not_fit_their_windows_are_refused(marks, why):
    """Also a start mark without the zygote's answer, and an end mark whose sum is that of another answer's windows."""
    with pytest.raises(throughput.Invalid, match=why):
        throughput.stretches(marks, ("raw gather",), SUMS)


def rounds(shares, clock=1.0, ceiling=200_000.0):
    """Rounds as measure() collects them: {level: (rate, child clock over the zygote's)}, whole batches at each share."""
    return [{throughput.CEILING: (ceiling, 1.0), "per item": (ceiling * share / 8, clock),
             "__getitems__": (ceiling * share / 3, clock), "whole batches": (ceiling * share, clock)} for share in shares]


def test_the_figure_is_the_median_share_with_its_range():
    figure = throughput._figure(rounds([0.5, 0.7, 0.6]), {"cpu": "x", "isolation": "jail"}, 1.0)
    whole = figure["levels"]["whole batches"]
    assert figure["status"] == "measured" and figure["rounds"] == 3 and "flag" not in figure
    assert (whole["share"], whole["low"], whole["high"]) == (0.6, 0.5, 0.7)
    assert figure["levels"]["per item"]["share"] == pytest.approx(0.075)
    assert figure["machine"]["isolation"] == "jail" and "0 workers" in figure["machine"]["start_method"]


def test_an_implausible_share_is_withheld_and_flagged():
    figure = throughput._figure(rounds([3.0, 3.1, 2.9]), {}, 1.0)
    assert figure["status"] == "not measured" and "implausible" in figure["reason"] and figure["flag"]
    assert GradeResult([], seed=1, duration_s=0, throughput=figure).to_dict()["throughput"]["status"] == "not measured"


def test_a_child_clock_that_disagrees_is_flagged_but_the_figure_stays_the_zygotes():
    figure = throughput._figure(rounds([0.5, 0.6, 0.7], clock=0.01), {}, 1.0)
    assert figure["status"] == "measured" and figure["levels"]["whole batches"]["share"] == 0.6
    assert "clock inside the student's process" in figure["flag"]


def test_the_zygotes_marks_are_bounded_at_the_receiving_end():
    forged = [[0.5, "x" * 10_000], "not a mark", [True, "start"], *([[1.0, "start raw gather"]] * (MAX_MARKS + 10))]
    marks = ProbeResult("ok", marks=forged).bounded().marks
    assert len(marks) <= MAX_MARKS and all(isinstance(t, float) and len(text) <= 120 for t, text in marks)
    assert [True, "start"] not in marks and "not a mark" not in marks


def test_a_mark_waits_for_the_zygotes_answer_and_returns_it():
    """A busy zygote that reads late still stamps a stretch's start and end apart: the probe does not write the end
    mark (nor draw the stretch's windows) before the zygote answered its start mark, and the windows come from the
    answer, which exists only once the mark was read (drawn by the zygote after the fork)."""
    import select
    import socket

    from grader.inside.probe_life import CLOCK_FD
    from grader.inside.probes import throughput as probes

    zygote_end, child_end = (end.detach() for end in socket.socketpair())
    pid = os.fork()
    if pid == 0:
        try:
            os.dup2(child_end, CLOCK_FD)
            answer = probes.mark("start raw gather")
            probes.mark(f"end raw gather 64 {answer} 0.000001")
        finally:
            os._exit(0)
    os.close(child_end)
    try:
        assert select.select([zygote_end], [], [], 60)[0], "the child wrote no start mark"
        time.sleep(0.3)  # the zygote, late: a child that did not wait would have written its end mark by now
        with socket.socket(fileno=os.dup(zygote_end)) as peek:
            waiting = peek.recv(4096, socket.MSG_PEEK | socket.MSG_DONTWAIT)
        assert waiting == b"start raw gather\n", "the child wrote past its start mark before the zygote answered it"
        os.set_blocking(zygote_end, False)
        marks = probe_wait._Marks(zygote_end)
        deadline = time.monotonic() + 60
        while len(marks.lines) < 2 and not marks.read() and time.monotonic() < deadline:
            select.select([zygote_end], [], [], 1)
    finally:
        os.waitpid(pid, 0)
        os.close(zygote_end)
    (_, start), (_, end) = marks.lines
    line, answer = throughput.answer_of(start)
    assert line == "start raw gather" and answer >= 0
    assert throughput.answer_of(end)[0] == f"end raw gather 64 {answer} 0.000001", "the child had the zygote's answer"


HONEST_COUNTS = {"file_bytes": 2_000_000, "opened_by_init": 0, "bytes_read": 0,
                 "most_reads_per_call": {"__getitems__": 1, "whole batches": 1}}


class FakeSandbox:
    """Answers the throughput probes with honest marks, each probe taking ``probe_s`` of a fake clock."""

    def __init__(self, clock, probe_s, status="ok"):
        self.clock, self.probe_s, self.status, self.calls = clock, probe_s, status, []
        setup = throughput.SETUP
        self.sums = x_sums(token_data(setup["tokens"], np.uint16, throughput.DATA_SEED, setup["high"]), setup["block"])

    def run(self, probe, args, timeout):
        self.calls.append((probe, timeout))
        self.clock[0] += self.probe_s
        windows = args["tokens"] - args["block"]
        total = chained_total(window_starts(ANSWER, windows, args["samples"]), self.sums, args["samples"], BATCH, windows)
        names = (throughput.CEILING,) if probe.endswith(":ceiling") else throughput.LEVELS
        marks = [mark for i, name in enumerate(names) for mark in
                 ([i, start_mark(name)], [i + (0.01 if name == throughput.CEILING else 0.04),
                                          f"end {name} {args['samples']} {total} 0.01 #{0:016x}"])]
        return ProbeResult(self.status, data=HONEST_COUNTS if probe.endswith(":levels") else {}, marks=marks,
                           error="hung" if self.status != "ok" else "")


def test_rounds_stop_when_the_next_would_not_fit_the_budget(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(throughput.time, "monotonic", lambda: clock[0])
    sandbox = FakeSandbox(clock, probe_s=0.8)
    figure = throughput.measure(sandbox, 1, {})
    assert figure["status"] == "measured" and figure["rounds"] == 1 and len(sandbox.calls) == 2
    assert clock[0] <= throughput.BUDGET_S and all(timeout <= throughput.BUDGET_S + 1 for _, timeout in sandbox.calls)
    assert figure["levels"]["whole batches"]["share"] == pytest.approx(0.25), "rates from the stamps: 0.01 s over 0.04 s"
    clock[0] = 0.0
    assert throughput.measure(FakeSandbox(clock, probe_s=0.1), 1, {})["rounds"] == throughput.ROUNDS


def test_a_probe_that_runs_out_of_the_budget_leaves_the_figure_not_measured(monkeypatch):
    clock = [0.0]
    monkeypatch.setattr(throughput.time, "monotonic", lambda: clock[0])
    figure = throughput.measure(FakeSandbox(clock, probe_s=4.0, status="timeout"), 1, {})
    assert figure == throughput.not_measured("too slow to measure within the grading's budget of 3 s")


def test_the_zygote_stamps_marks_as_it_reads_them_and_bounds_them():
    read_end, write_end = os.pipe()
    os.set_blocking(read_end, False)
    marks = probe_wait._Marks(read_end)
    try:
        before = time.monotonic()
        os.write(write_end, b"start per item\n" + b"x" * 500 + b"\nend per item 64 1 0.1\npartial")
        assert marks.read() is False
        assert [throughput.answer_of(text)[0] for _, text in marks.lines] == ["start per item", "end per item 64 1 0.1"]
        assert all(before <= at <= time.monotonic() for at, _ in marks.lines)
        os.write(write_end, b"\n".join([b"m"] * (2 * probe_wait.MAX_MARKS)) + b"\n")
        marks.read()
        assert len(marks.lines) == probe_wait.MAX_MARKS
    finally:
        os.close(write_end)
    assert marks.read() is True, "end of file once the child is gone"
    os.close(read_end)


def test_bench_throughput_names_an_answer_it_does_not_know(tmp_path):
    with pytest.raises(ValueError, match="not right answers of the corpus"):
        throughput_noise.submissions(["right/tokens/no_such_answer"], tmp_path)
    assert list(throughput_noise.submissions([], tmp_path)) == ["reference"]


# ---------------------------------------------------------------- the rubric and the check it adds


def test_by_default_the_figure_informs_and_gives_no_points():
    rule = load_throughput_rule()
    assert rule.points == 0 and rule.level == "whole batches"
    tokens = ExerciseResult("tokens", [CheckResult("ok", "tokens", "passed", 20, 20)])
    _throughput_check(rule, throughput._figure(rounds([0.6]), {}, 1.0), [tokens])
    assert [c.name for c in tokens.checks] == ["ok"]


@pytest.mark.parametrize("share, status, score", [(0.31, "passed", 2.0), (0.29, "failed", 0.0), (None, "failed", 0.0)])
def test_points_for_a_share_above_the_threshold(share, status, score):
    rule = ThroughputRule(points=2, level="whole batches", threshold=0.3)
    figure = throughput._figure(rounds([share]), {}, 1.0) if share else throughput.not_measured("a tokens check failed")
    tokens = ExerciseResult("tokens", [CheckResult("ok", "tokens", "passed", 20, 20)])
    _throughput_check(rule, figure, [tokens])
    (check,) = tokens.checks[1:]
    assert (check.name, check.status, check.score, check.max_score) == (
        "whole_batches_reach_30_percent_of_the_raw_gather", status, score, 2.0)
    assert status == "passed" or ("29.0%" in check.message if share else "a tokens check failed" in check.message)


@pytest.mark.parametrize("table, error", [
    ("points = -1", "points must be"), ("level = 'fast'", "level must be one of"), ("threshold = 30", "from 0 to 1"),
    ("points = 2", "needs a threshold"), ("speed = 1", "expected the keys"), ("visibility = 'secret'", "visibility"),
])
def test_bad_throughput_tables_are_rejected_with_a_reason(tmp_path, table, error):
    path = tmp_path / "rubric.toml"
    path.write_text(f"[collate]\ninputs_are_not_modified = 1\n\n[throughput]\n{table}\n")
    with pytest.raises(RubricError, match=error):
        load_throughput_rule(path)


# ---------------------------------------------------------------- what the writers show


def perfect(figure):
    return GradeResult([ExerciseResult("tokens", [CheckResult("ok", "tokens", "passed", 20, 20)])], seed=1, duration_s=1,
                       isolation={"level": "jail", "reason": "", "layers": {"namespaces": "bwrap"}}, throughput=figure)


def test_a_perfect_submission_with_its_figure_looks_perfect_and_shows_it():
    result = perfect(throughput._figure(rounds([0.6, 0.62, 0.58]), {"cpu": "AMD EPYC", "isolation": "jail"}, 1.0))
    payload = gradescope_payload(result)
    assert payload["leaderboard"] == [{"name": "Whole batches, % of the raw gather", "value": 60.0, "order": "desc"}]
    assert all(t["status"] == "passed" for t in payload["tests"]) and payload["score"] == 20
    markdown = to_markdown(result)
    assert "❌" not in markdown.split("<sub>")[0] and "whole batches 60.0 %" in markdown and "████████████░░░░░░░░" in markdown
    assert "Throughput: per item 7.5 %" in to_console(result, color=False)
    (row,) = csv.DictReader(io.StringIO(gradebook_csv([("s1", result, "")])))
    assert row["whole_batches_pct_of_raw_gather"] == "60.0" and row["score"] == row["max_score"] == "20"


def test_a_figure_not_measured_says_why_and_joins_no_leaderboard():
    result = perfect(throughput.not_measured("too slow to measure within the grading's budget of 3 s"))
    assert "leaderboard" not in gradescope_payload(result)
    assert "not measured (too slow to measure" in to_markdown(result)
    assert "No throughput figure was measured" in class_summary_markdown([("s1", result, "")])


def test_the_class_leaderboard_ranks_by_share_then_by_student():
    rows = [(name, perfect(throughput._figure(rounds([share]), {}, 1.0)), "") for name, share in
            (("bob", 0.4), ("amy", 0.6), ("cid", 0.6), ("dan", 0.1))] + [("eve", None, "crashed")]
    board = class_summary_markdown(rows).split("### Throughput leaderboard", 1)[1]
    ranked = [line.split(" | ")[1] for line in board.splitlines() if line.startswith("| ") and line[2].isdigit()]
    assert ranked == ["amy", "cid", "bob", "dan"] and "Not measured: 1 student" in board


# ---------------------------------------------------------------- measured in the sandbox (slow)

#: A submission that slows every clock of its own process down 100 times, the one the probe bound at import included:
#: by its own clock, it reads 100 times faster.
CLOCK_TAMPER = '''
import sys as _sys
import time as _time

def _slowed(real):
    zero = real()
    return lambda: zero + (real() - zero) / 100

for _name in ("perf_counter", "monotonic", "time", "process_time"):
    setattr(_time, _name, _slowed(getattr(_time, _name)))
for _name in ("perf_counter_ns", "monotonic_ns", "time_ns"):
    setattr(_time, _name, (lambda real: lambda: int(real() * 1e9))(getattr(_time, _name[:-3])))
_probe = _sys.modules.get("grader.inside.probes.throughput")
if _probe is not None:
    _probe._clock = _time.perf_counter
'''


def submission(tmp_path, name, tokens_source):
    folder = tmp_path / name
    shutil.copytree(REPO / "solutions", folder, ignore=shutil.ignore_patterns("__pycache__"))
    (folder / "tokens.py").write_text(tokens_source)
    return folder


HOSTILE = REPO / "grader" / "tests" / "corpus" / "hostile"
#: Right answers that recognise the measured run (by the file's size, or the probe on their callers' frames): one
#: gathers the windows it finds on the frames ahead and paces read_batch to its own raw gather, the other reads the
#: file whole into memory, widened. Before the windows came from the zygote's answers, the first ranked above the
#: reference (66.9 % beside 43.8 % here), unflagged.
MEASUREMENT_AWARE = ("measured_run_reads_ahead", "measured_run_in_memory")


@pytest.fixture(scope="module")
def figures(tmp_path_factory):
    """The figure of the reference, the slow right answer, the clock tamperer and the measurement-aware answers,
    measured one after the other."""
    tmp = tmp_path_factory.mktemp("throughput")
    reference = (REPO / "solutions" / "tokens.py").read_text()
    (slow,) = [e for e in corpus.entries("right") if e.id == "right/tokens/slow_widening"]
    folders = {"reference": REPO / "solutions", "slow": submission(tmp, "slow", slow.source()),
               "tamper": submission(tmp, "tamper", reference + CLOCK_TAMPER),
               **{name: submission(tmp, name, (HOSTILE / name / "tokens.py").read_text()) for name in MEASUREMENT_AWARE}}
    found = {}
    for name, folder in folders.items():
        with Sandbox(folder, files=CONTRACT_FILES, probe_modules=PROBE_MODULES) as sandbox:
            found[name] = throughput.measure(sandbox, 5, {"cpu": "test", "isolation": sandbox.isolation.level})
    return found


def shares(figure):
    assert figure["status"] == "measured", figure
    return {name: level["share"] for name, level in figure["levels"].items()}


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_the_reference_reads_whole_batches_at_least_3_times_faster_than_per_item(figures):
    reference = shares(figures["reference"])
    assert reference["whole batches"] >= 3 * reference["per item"], reference
    assert 0.8 <= figures["reference"]["child_clock_ratio"] <= 1.25, "an honest child's clock agrees with the zygote's"


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_right_answer_that_widens_slowly_ranks_below_the_reference(figures):
    assert shares(figures["slow"])["whole batches"] < shares(figures["reference"])["whole batches"], figures


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_a_submission_that_slows_its_own_clocks_gets_the_zygotes_figure(figures):
    tamper = figures["tamper"]
    assert tamper["child_clock_ratio"] < 0.05, "the tamper worked: by its own clock, its stretches took 1/100 of the time"
    assert "clock inside the student's process" in tamper["flag"]
    by_its_clock = shares(tamper)["whole batches"] / tamper["child_clock_ratio"]
    assert by_its_clock > 10 * throughput.PLAUSIBLE_SHARE, "measured by the child, the figure would have been absurd"
    assert shares(tamper)["whole batches"] <= max(1.0, 2 * shares(figures["reference"])["whole batches"]), figures


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("name", MEASUREMENT_AWARE)
def test_a_right_answer_that_knows_it_is_measured_gets_no_figure_above_the_reference(figures, name):
    """Its windows reach the probe only after the start stamp, so what it gathered ahead is useless, and what it did
    (a memmap opened in __init__, the file held in memory) is what the tokens checks refuse: withheld and flagged."""
    figure, reference = figures[name], shares(figures["reference"])["whole batches"]
    assert "flag" in figure, figure
    assert figure["status"] == "not measured" or shares(figure)["whole batches"] <= reference + 0.1, (figure, reference)
    assert "broke what the tokens checks judge" in figure.get("reason", ""), figure


def test_the_promises_of_the_checks_are_judged_on_the_measured_run():
    assert throughput.broken_promises(HONEST_COUNTS, 3.0, 1.0) == []
    cases = {"opened_by_init": (1, "opened 1 memmap"), "bytes_read": (2_000_000, "bytes were read"),
             "most_reads_per_call": ({"__getitems__": 1, "whole batches": 2}, "whole batches indexed the memmap 2 times")}
    for key, (value, why) in cases.items():
        (broken,) = throughput.broken_promises(dict(HONEST_COUNTS, **{key: value}))
        assert why in broken
    (broken,) = throughput.broken_promises(HONEST_COUNTS, 6.0, 0.5)
    assert "5.5 MB more than the raw gather's" in broken
    assert throughput.broken_promises(None) == ["the levels probe sent back no counts"]
