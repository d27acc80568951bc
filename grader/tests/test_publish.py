"""`python -m grader publish`: the grader alone, with nothing a student should not read."""

import subprocess
import sys

import pytest

from grader.paths import REPO
from grader.tools.delivery.published_grader import PublishError, publish


def test_publishes_the_engine_sandbox_and_writers_only(tmp_path):
    files = publish(tmp_path / "out")
    names = [p.relative_to(tmp_path / "out").as_posix() for p in files]
    assert "grader/engine/runner.py" in names and "grader/sandbox/jail.py" in names and "grader/writers/markdown.py" in names
    assert {"requirements.txt", "lab.toml", "README.md"} <= set(names)
    parts = {n.split("/")[1] for n in names if n.startswith("grader/") and n.count("/") > 1}
    assert parts == {"commands", "engine", "exercises", "inside", "sandbox", "shared", "writers"}, \
        f"published grader/ subfolders: {sorted(parts)}"
    assert "grader/exercises/collate/probe.py" in names and "grader/exercises/collate/check_collate.py" in names
    assert not any("/corpus/" in n for n in names), "the corpus answers (right ones among them) stay in this repository"
    assert sorted(n for n in names if n.startswith("grader/commands/")) == [
        "grader/commands/__init__.py", "grader/commands/grade.py", "grader/commands/verdict.py"]
    assert not any(n.startswith(("solutions/", "exercises/", "tests/")) for n in names)
    assert not any("/tests/" in n or "/tools/" in n or n.endswith(".pyc") for n in names)
    assert not [n for n, p in zip(names, files) if p.suffix == ".py" and "### BEGIN SOLUTION" in p.read_text()]


def test_the_published_grader_offers_only_the_engine_commands(tmp_path):
    publish(tmp_path / "out")
    proc = subprocess.run([sys.executable, "-m", "grader", "--help"], cwd=tmp_path / "out", capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert "grade" in proc.stdout and "verdict" in proc.stdout
    for tool in ("release", "batch", "scoreboard", "generate", "publish"):
        assert f"    {tool} " not in proc.stdout, f"{tool} is offered by the published grader"


def test_refuses_non_empty_or_inside_the_repo(tmp_path):
    (tmp_path / "out").mkdir()
    (tmp_path / "out" / "keep.txt").write_text("x")
    with pytest.raises(PublishError, match="not empty"):
        publish(tmp_path / "out")
    publish(tmp_path / "out", force=True)
    assert not (tmp_path / "out" / "keep.txt").exists()
    with pytest.raises(PublishError, match="inside the instructor repository"):
        publish(REPO / "build" / "grader")


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_the_published_grader_grades_on_its_own(tmp_path):
    publish(tmp_path / "grader-repo")
    proc = subprocess.run([sys.executable, "-m", "grader", "grade", str(REPO / "exercises"), "--only", "collate", "--quiet"],
                          cwd=tmp_path / "grader-repo", capture_output=True, text=True, timeout=110)
    assert proc.returncode == 0, proc.stderr
    assert "0 / 20" in proc.stdout or "0/20" in proc.stdout
