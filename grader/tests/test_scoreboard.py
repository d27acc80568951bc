"""The scoreboard reads the corpus tests' JUnit report and counts what held."""

from grader.scoreboard import Entry, parse_junit, render

JUNIT = """<?xml version="1.0" encoding="utf-8"?>
<testsuites><testsuite name="pytest">
<testcase classname="t" name="test_wrong_answer_loses_points_with_a_message[wrong/collate/left_padding]" time="3.0"/>
<testcase classname="t" name="test_wrong_answer_loses_points_with_a_message[wrong/collate/float_mask]" time="5.0">
  <failure message="wrong/collate/float_mask scored full marks"/></testcase>
<testcase classname="t" name="test_right_answer_scores_full_marks[right/tokens/per_call]" time="9.0"/>
<testcase classname="t" name="test_hostile_submission[segfault]" time="4.0"/>
<testcase classname="t" name="test_every_corpus_file_compiles[wrong]" time="0.1"/>
</testsuite></testsuites>"""


def test_counts_per_kind_and_lists_what_did_not_hold(tmp_path):
    path = tmp_path / "corpus.xml"
    path.write_text(JUNIT)
    entries = parse_junit(path)
    assert [(e.kind, e.name, e.held) for e in entries] == [
        ("wrong", "wrong/collate/left_padding", True), ("wrong", "wrong/collate/float_mask", False),
        ("right", "right/tokens/per_call", True), ("hostile", "hostile/segfault", True)]
    text = render(entries)
    assert "wrong answers caught" in text and "1/2" in text
    assert "right answers accepted" in text and "1/1" in text
    assert "median 4.5 s, max 9.0 s (right/tokens/per_call)" in text
    assert "  wrong/collate/float_mask: wrong/collate/float_mask scored full marks" in text


def test_an_empty_report_renders():
    assert "0/0" in render([Entry("wrong", "x", True, 1.0, "")][:0])


def test_from_junit_on_the_command_line(tmp_path):
    import subprocess
    import sys
    from pathlib import Path

    path = tmp_path / "corpus.xml"
    path.write_text(JUNIT)
    repo = Path(__file__).resolve().parents[2]
    proc = subprocess.run([sys.executable, "-m", "grader", "scoreboard", "--from-junit", str(path)], cwd=repo,
                          capture_output=True, text=True, timeout=60)
    assert proc.returncode == 1 and "1/2" in proc.stdout, proc.stderr
    missing = subprocess.run([sys.executable, "-m", "grader", "scoreboard", "--from-junit", str(tmp_path / "no.xml")],
                             cwd=repo, capture_output=True, text=True, timeout=60)
    assert missing.returncode == 2 and "does not exist" in missing.stderr
