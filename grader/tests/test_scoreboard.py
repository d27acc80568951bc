"""The scoreboard counts the corpus from the corpus itself and reads the outcomes from a JUnit report."""

import subprocess
import sys
from pathlib import Path

import pytest

from grader.paths import REPO
from grader.tools.authoring import corpus
from grader.tools.authoring.corpus_scoreboard import corpus_ids, holds, outcomes, read_junit, render

WRONG = [e.id for e in corpus.entries("wrong")]
RIGHT = [e.id for e in corpus.entries("right")]
HOSTILE = corpus_ids()["hostile"]
REPOSITORIES = corpus_ids()["repositories"]


def case(function: str, entry: str, body: str = "", time: float = 2.0) -> str:
    return f'<testcase classname="t" name="{function}[{entry}]" time="{time}">{body}</testcase>'


def line(text: str, label: str) -> str:
    return next(row for row in text.splitlines() if row.strip().startswith(label))


def report(tmp_path: Path, cases: list[str]) -> Path:
    path = tmp_path / "corpus.xml"
    path.write_text('<?xml version="1.0"?><testsuites><testsuite name="pytest">' + "".join(cases) + "</testsuite></testsuites>")
    return path


def test_counts_come_from_the_corpus_and_missing_entries_are_not_run(tmp_path):
    cases = [case("test_wrong_answer_loses_points_with_a_message", e) for e in WRONG[1:]]
    cases.append(case("test_wrong_answer_loses_points_with_a_message", WRONG[0], '<failure message="scored full marks"/>'))
    cases += [case("test_right_answer_scores_full_marks", e) for e in RIGHT]
    cases += [case("test_hostile_submission", h) for h in HOSTILE[:-1]]  # the last one is missing: renamed, say
    by_kind = outcomes(read_junit(report(tmp_path, cases)))
    text = render(by_kind)
    assert f"{len(WRONG) - 1}/{len(WRONG)}" in line(text, "wrong answers caught")
    assert f"{len(HOSTILE) - 1}/{len(HOSTILE)}" in line(text, "hostile submissions contained")
    assert f"{WRONG[0]}: failed: scored full marks" in text
    assert f"{HOSTILE[-1]}: not run" in text
    assert f"0/{len(REPOSITORIES)}" in line(text, "hostile repositories contained") and len(REPOSITORIES) >= 10
    assert f"[hostile repositories contained] {REPOSITORIES[0]}: not run" in text
    assert not holds(by_kind)


def test_public_catch_rate_per_exercise_and_the_hidden_reasons(tmp_path):
    hidden = WRONG[0]
    cases = [case("test_wrong_answer_loses_points_with_a_message", e) for e in WRONG]
    cases += [case("test_right_answer_scores_full_marks", e) for e in RIGHT]
    cases += [case("test_hostile_submission", h) for h in HOSTILE]
    cases += [case("test_hostile_repository", r) for r in REPOSITORIES]
    cases += [case("test_public_tests_catch_wrong_answer", e) for e in WRONG[1:]]
    cases.append(case("test_public_tests_catch_wrong_answer", hidden, '<skipped type="pytest.xfail" message="hidden on purpose: x"/>'))
    by_kind = outcomes(read_junit(report(tmp_path, cases)))
    text = render(by_kind)
    assert f"{len(REPOSITORIES)}/{len(REPOSITORIES)}" in line(text, "hostile repositories contained")
    assert f"{len(WRONG) - 1}/{len(WRONG)}" in line(text, "wrong answers the public tests catch")
    assert "left to the grader on purpose" in text and hidden in text
    assert holds(by_kind)


def test_points_lost_per_wrong_answer_are_printed_with_the_checks(tmp_path):
    def graded(entry, points, checks):
        props = (f'<properties><property name="failed_checks" value="{checks}"/>'
                 f'<property name="points_lost" value="{points}"/></properties>')
        return case("test_wrong_answer_loses_points_with_a_message", entry, props)

    cases = [graded(WRONG[0], 2, "tables_are_int64_b_by_t"), graded(WRONG[1], 13, "a b c"), graded(WRONG[2], 3, "d")]
    cases += [case("test_wrong_answer_loses_points_with_a_message", e) for e in WRONG[3:]]  # recorded nothing
    text = render(outcomes(read_junit(report(tmp_path, cases))))
    summary = line(text, "points lost per wrong answer")
    assert f"(3 of {len(WRONG)} recorded): median 3, 1 (33 %) lose more than 10" in summary
    rows = text.splitlines()
    first = rows.index(summary) + 1
    assert rows[first : first + 3] == [f"    13  {WRONG[1]}: a, b, c", f"     3  {WRONG[2]}: d", f"     2  {WRONG[0]}: tables_are_int64_b_by_t"]


@pytest.mark.slow
def test_from_junit_on_the_command_line(tmp_path):
    path = report(tmp_path, [case("test_wrong_answer_loses_points_with_a_message", WRONG[0])])
    proc = subprocess.run([sys.executable, "-m", "grader", "scoreboard", "--from-junit", str(path)], cwd=REPO,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "not run" in proc.stdout, proc.stderr
    missing = subprocess.run([sys.executable, "-m", "grader", "scoreboard", "--from-junit", str(tmp_path / "no.xml")],
                             cwd=REPO, capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "does not exist" in missing.stderr
