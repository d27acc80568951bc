"""Canvas's gradebook import and the writers a student reads, for a grade of record.

* ``canvas.csv``: Canvas's layout (Student, ID, SIS User ID, SIS Login ID,
  Section, the lab; a Points Possible row), joined to the roster, with who is
  on one side only listed; a bad roster is a clear error before anything is
  written. On the class of 30, the workflow's merge job makes it from the
  roster input.
* A secret seed of record is in the JSON report and in no writer a student
  reads (Markdown, console, Gradescope, JUnit).
"""

from __future__ import annotations

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import pytest

from grader.engine.results import CheckResult, ExerciseResult, GradeResult
from grader.paths import REPO
from grader.registry import EXERCISES
from grader.tests.class_of_30 import shared_class
from grader.tests.test_class_of_30 import ROSTER_LEFT_OUT
from grader.tools.class_grading.canvas_import import RosterError, read_roster, write_canvas
from grader.writers import to_console, to_gradescope, to_json, to_junit, to_markdown
from grader.writers.canvas import CANVAS_COLUMNS, POINTS_POSSIBLE

SEED = 1_987_654_321


def result(score: float = 20.0, secret: bool = True) -> GradeResult:
    return GradeResult([ExerciseResult(n, [CheckResult("ok", n, "passed" if score else "failed", score, 20)]) for n in EXERCISES],
                       seed=SEED, duration_s=1.0, seed_secret=secret, grader_sha256="ab" * 32)


def test_a_secret_seed_is_in_the_json_report_only():
    secret = result()
    assert json.loads(to_json(secret))["seed"] == SEED
    for render in (to_markdown, to_console, to_gradescope, to_junit):
        assert str(SEED) not in render(secret), render.__name__
    assert "Seed: secret" in to_markdown(secret)
    public = result(secret=False)
    for render in (to_markdown, to_console, to_gradescope, to_junit):
        assert str(SEED) in render(public), render.__name__


def _roster(path: Path, text: str) -> Path:
    path.write_text(text, encoding="utf-8")
    return path


def test_canvas_csv_joins_the_gradebook_to_the_roster(tmp_path, capsys):
    roster = _roster(tmp_path / "roster.csv", "\ufeffstudent_id,name,sis_user_id,sis_login_id,section,canvas_id\n"
                     "ada,Ada L,S1,ada@u.edu,A,101\nben,=cmd(),S2,ben@u.edu,B,\nzed,Zed,S9,zed@u.edu,A,\n")
    rows = [("ada", result(20.0), ""), ("ben", result(10.0), ""), ("cai", result(5.0), ""), ("zed", None, "no commit")]
    section = write_canvas(rows, roster, tmp_path)
    table = list(csv.reader(io.StringIO((tmp_path / "canvas.csv").read_text())))
    assert table[0] == [*CANVAS_COLUMNS, "Data-loading lab"]
    assert table[1] == [POINTS_POSSIBLE, "", "", "", "", "100"]
    assert table[2:] == [["Ada L", "101", "S1", "ada@u.edu", "A", "100"], ["'=cmd()", "", "S2", "ben@u.edu", "B", "50"],
                         ["Zed", "", "S9", "zed@u.edu", "A", ""]]
    err = capsys.readouterr().err
    assert "1 graded but not in the roster (not in canvas.csv): cai" in err
    assert "1 graded without a score (a grader error: an empty cell in canvas.csv): zed" in err
    assert "### Canvas gradebook" in section and "cai" in section


@pytest.mark.parametrize("text, problem", [
    ("student_id,name\nada,Ada\n", "lacks the column(s) sis_user_id, sis_login_id, section"),
    ("student_id,name,sis_user_id,sis_login_id,section\nada,A,1,a,x\nada,B,2,b,y\n", "line 3: student_id 'ada' appears twice"),
    ("student_id,name,sis_user_id,sis_login_id,section\n,A,1,a,x\n", "line 2: no student_id"),
    (None, "does not exist"),
])
@pytest.mark.slow
def test_a_bad_roster_is_a_clear_error(tmp_path, text, problem):
    path = tmp_path / "roster.csv" if text is None else _roster(tmp_path / "roster.csv", text)
    with pytest.raises(RosterError, match=problem.replace("(", r"\(").replace(")", r"\)")):
        read_roster(path)
    (tmp_path / "slice" / "results").mkdir(parents=True)
    done = subprocess.run([sys.executable, "-m", "grader", "merge", str(tmp_path / "slice"), "--out", str(tmp_path / "out"),
                           "--roster", str(path)], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and problem.split(":")[0] in done.stderr and "Traceback" not in done.stderr
    assert not (tmp_path / "out").exists(), "nothing written for a bad roster"


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_class_of_30_comes_as_canvas_csv(graded):
    table = list(csv.reader(io.StringIO(graded["canvas"])))
    assert table[0][:5] == list(CANVAS_COLUMNS) and table[1][0].strip() == "Points Possible" and table[1][5] == "100"
    students = shared_class().students
    by_login = {row[3]: row for row in table[2:]}
    expected = {s for s in students if s not in ROSTER_LEFT_OUT}
    assert set(by_login) == {f"{s}@example.edu" for s in expected}
    rows = {r["student"]: r for r in graded["rows"]}
    for name in expected:
        assert by_login[f"{name}@example.edu"][5] == ("" if rows[name]["status"] != "graded" else rows[name]["score"])
    summary = graded["gradebook_summary"]
    assert "2 graded but not in the roster (not in canvas.csv): many\\_files, tia" in summary
    assert "1 in the roster but not graded (not in canvas.csv): zed" in summary
    assert "canvas.csv: 2 graded but not in the roster" in graded["logs"]["merge"]["Merge"]
