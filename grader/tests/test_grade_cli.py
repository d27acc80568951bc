"""`python -m grader grade` end to end: scores, every report file, bad arguments.

The report files are checked the way their consumers read them; the
writers' own tests (test_writers.py) cover the formats in detail.
"""

import json
import subprocess
import sys
import xml.etree.ElementTree as ET

import pytest

from grader.engine.results import EXERCISES
from grader.engine.rubric import load_rubric
from grader.paths import REPO

OUTPUTS = ("json", "markdown", "gradescope", "junit")


def grade(folder, out_dir, *extra):
    out_dir.mkdir(parents=True, exist_ok=True)
    paths = {name: out_dir / f"report.{name}" for name in OUTPUTS}
    args = [sys.executable, "-m", "grader", "grade", str(folder), "--seed", "5", *extra]
    for name, path in paths.items():
        args += [f"--{name}", str(path)]
    proc = subprocess.run(args, cwd=REPO, capture_output=True, text=True, timeout=600)
    return proc, paths


@pytest.fixture(scope="module")
def solutions_run(tmp_path_factory):
    return grade(REPO / "solutions", tmp_path_factory.mktemp("solutions"))


@pytest.fixture(scope="module")
def stubs_run(tmp_path_factory):
    return grade(REPO / "exercises", tmp_path_factory.mktemp("stubs"))


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_solutions_score_100_in_every_report(solutions_run):
    proc, paths = solutions_run
    assert proc.returncode == 0, proc.stderr
    report = json.loads(paths["json"].read_text())
    assert report["score"] == report["max_score"] == 100
    assert report["seed"] == 5 and "Seed: 5" in proc.stdout
    assert [e["name"] for e in report["exercises"]] == list(EXERCISES)
    rubric = load_rubric()
    for exercise in report["exercises"]:
        assert [c["name"] for c in exercise["checks"]] == list(rubric[exercise["name"]])
        for check in exercise["checks"]:
            assert check["status"] in ("passed", "skipped"), (exercise["name"], check)
    assert report["integrity"]["flags"] == []

    gradescope = json.loads(paths["gradescope"].read_text())
    assert gradescope["score"] == 100 and all(t["status"] in ("passed", "failed") for t in gradescope["tests"])
    junit = ET.parse(paths["junit"]).getroot()
    assert sum(int(s.get("failures")) + int(s.get("errors")) for s in junit.iter("testsuite")) == 0
    assert "100" in paths["markdown"].read_text().splitlines()[0]

    # The grader's throughput figure of the reference, measured in this grading (grader/docs/throughput.md): a ratio
    # of the same run, never a time. It joins Gradescope's leaderboard and the feedback, and costs no points.
    figure = report["throughput"]
    assert figure["status"] == "measured", figure
    levels = {name: level["share"] for name, level in figure["levels"].items()}
    assert levels["whole batches"] >= 3 * levels["per item"], levels
    assert figure["machine"]["isolation"] == report["isolation"]["level"] and figure["machine"]["cpu"]
    assert gradescope["leaderboard"][0]["value"] == round(100 * levels["whole batches"], 1)
    assert "Throughput, share of the raw gather" in paths["markdown"].read_text()


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_stubs_score_0_with_one_not_implemented_line_per_exercise(stubs_run):
    proc, paths = stubs_run
    assert proc.returncode == 0, proc.stderr
    report = json.loads(paths["json"].read_text())
    assert report["score"] == 0 and report["max_score"] == 100
    for exercise in report["exercises"]:
        assert exercise["note"].startswith("not implemented yet"), exercise["note"]
        gpu = [c for c in exercise["checks"] if c["name"] == "pin_memory_on_gpu"]
        assert all(c["status"] == "skipped" and "no CUDA device here" in c["message"] for c in gpu), \
            "a check that cannot run on this runner is not run, whatever the submission"
        assert all(c["status"] == "failed" and "not implemented yet" in c["message"] for c in exercise["checks"] if c not in gpu)
    assert proc.stdout.count("not implemented yet") >= 5


@pytest.mark.slow
def test_only_grades_the_named_exercises(tmp_path):
    first, last = EXERCISES[0], EXERCISES[-1]
    proc, paths = grade(REPO / "exercises", tmp_path, "--only", f"{first},{last}")
    assert proc.returncode == 0, proc.stderr
    report = json.loads(paths["json"].read_text())
    assert [e["name"] for e in report["exercises"]] == [first, last] and report["max_score"] == 40


@pytest.mark.parametrize("args, message", [
    (["grade", "no/such/folder"], "does not exist"),
    (["grade", "exercises", "--only", "colate"], "unknown exercise"),
    (["grade", "exercises", "--seed", "abc"], "seed must be a whole number"),
    (["grade", "exercises", "--gpu", "maybe"], "invalid choice"),
    (["grade", "exercises", "--timeout-scale", "0"], "timeout scale must be from 0.1 to 3"),
    (["grade", "exercises", "--timeout-scale", "fast"], "timeout scale must be a number"),
    (["grade", "exercises", "--rubric", "no/such/rubric.toml"], "does not exist"),
    (["bench", "--repeats", "0"], "at least 1"),
    (["frobnicate"], "invalid choice"),
])
def test_bad_arguments_exit_2_with_a_reason(args, message):
    proc = subprocess.run([sys.executable, "-m", "grader", *args], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert proc.returncode == 2
    assert message in proc.stderr
