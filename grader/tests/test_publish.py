"""`python -m grader publish`: the grader alone, with nothing a student should not read."""

import subprocess
import sys
from pathlib import Path

import pytest

from grader.publish import PublishError, publish

REPO = Path(__file__).resolve().parents[2]


def test_publishes_grader_without_tests_or_solutions(tmp_path):
    files = publish(tmp_path / "out")
    names = [p.relative_to(tmp_path / "out").as_posix() for p in files]
    assert "grader/runner.py" in names and "requirements.txt" in names
    assert not any(n.startswith(("solutions/", "exercises/", "grader/tests/")) for n in names)
    solution_markers = [n for n, p in zip(names, files) if p.suffix == ".py" and "### BEGIN SOLUTION" in p.read_text()]
    assert solution_markers == [] or all(n in ("grader/stubs.py", "grader/release.py") for n in solution_markers)


def test_refuses_non_empty_or_inside_the_repo(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("x")
    with pytest.raises(PublishError, match="not empty"):
        publish(tmp_path / "out")
    publish(tmp_path / "out", force=True)
    assert not (tmp_path / "out" / "keep.txt").exists()
    with pytest.raises(PublishError, match="inside the instructor repository"):
        publish(REPO / "build" / "grader")


@pytest.mark.timeout(120)
def test_the_published_grader_grades_on_its_own(tmp_path):
    publish(tmp_path / "grader-repo")
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", str(REPO / "exercises"), "--only", "collate", "--quiet"],
                          cwd=tmp_path / "grader-repo", capture_output=True, text=True, timeout=110)
    assert proc.returncode == 0, proc.stderr
    assert "0 / 20" in proc.stdout or "0/20" in proc.stdout
