"""The instructor's dry runs as commands: their parts that need no grading (the gradings themselves are the suite's
host and batch tests, which run the same code).

Proves: ``dry-run`` slices a class as the workflow's script does and plans the
workflow's commands in its order (batch per slice, merge with the roster,
review over every slice's files) and its INDEX.md names every artifact;
``review`` reads a class from several folders and refuses a student found
twice; the review's HTML keeps no external URL; ``simulate gradescope``
refuses what it cannot run with a sentence, and says what the student and the
instructor see. Does not prove: a whole simulated Gradescope run (test_hosts.py
runs the same container with the same zip) or a whole dry run (test_batch.py,
test_review.py and test_class_of_30.py run its steps).
"""

from __future__ import annotations

import pytest

from grader.tools.class_grading import dry_run, offline_html
from grader.tools.class_grading import integrity_review as review
from grader.tools.delivery import simulate_gradescope


def test_slices_as_the_workflow_makes_them():
    per_slice, most = dry_run.workflow_slicing()
    assert dry_run.slice_count(1, None) == 1
    assert dry_run.slice_count(per_slice + 1, None) == 2
    assert dry_run.slice_count(per_slice * most * 2, None) == most
    assert dry_run.slice_count(3, 7) == 3, "never more slices than students"


def test_the_plan_is_the_workflows_steps_in_order(tmp_path):
    steps = dry_run.plan(tmp_path / "class", tmp_path / "out", 2, tmp_path / "roster.csv", 2, "jail")
    assert [s.name for s in steps] == ["grade slice 0", "grade slice 1", "merge", "review"]
    assert steps[0].argv[3:7] == ["batch", str(tmp_path / "class"), "--slice", "0/2"]
    assert steps[2].argv[3:] == ["merge", str(tmp_path / "out" / "slice-0"), str(tmp_path / "out" / "slice-1"),
                                 "--out", str(tmp_path / "out" / "gradebook"), "--roster", str(tmp_path / "roster.csv")]
    assert steps[3].argv[4:6] == [str(tmp_path / "out" / "files-0"), str(tmp_path / "out" / "files-1")]
    text = dry_run.index(tmp_path / "out", tmp_path / "class", 3, 2, steps, None)
    for artifact in ("gradebook/gradebook.csv", "gradebook/feedback/<student>.md", "review/review.md", "slice-1/",
                     "files-0/", "give --roster"):
        assert artifact in text


def test_a_dry_run_refuses_a_folder_without_students(tmp_path):
    with pytest.raises(dry_run.DryRunError, match="holds no student folders"):
        dry_run.dry_run(tmp_path, tmp_path / "out")


def test_review_reads_a_class_from_several_folders(tmp_path):
    for folder, student in (("files-0", "ada"), ("files-1", "bob")):
        (tmp_path / folder / student).mkdir(parents=True)
        (tmp_path / folder / student / "collate.py").write_text("x = 1\n")
    students, notes = review.read_class([tmp_path / "files-0", tmp_path / "files-1"])
    assert sorted(students) == ["ada", "bob"] and not notes
    (tmp_path / "files-1" / "ada").mkdir()
    with pytest.raises(review.ReviewError, match="the student ada is in .*files-0 and in .*files-1"):
        review.read_class([tmp_path / "files-0", tmp_path / "files-1"])


def test_the_reviews_html_loads_nothing_from_elsewhere():
    from importlib.resources import files

    template = (files("copydetect") / "data" / "report.html").read_text(encoding="utf-8")
    assert offline_html.external_urls(template), "copydetect's template loads Bootstrap from a CDN"
    offline = offline_html.make_offline(template)
    assert offline_html.external_urls(offline) == []
    assert "data-bs-toggle" in offline and offline_html.SCRIPT in offline and offline_html.STYLE in offline


def test_simulate_says_what_it_cannot_run(tmp_path, monkeypatch):
    monkeypatch.setattr(simulate_gradescope.container, "available", lambda: None)
    with pytest.raises(simulate_gradescope.SimulationError, match="is not a folder"):
        simulate_gradescope.simulate(tmp_path / "nothing", tmp_path / "out")
    (tmp_path / "sub").mkdir()
    (tmp_path / "bad.zip").write_text("not a zip")
    with pytest.raises(simulate_gradescope.SimulationError, match="not a Gradescope autograder zip"):
        simulate_gradescope.simulate(tmp_path / "sub", tmp_path / "out", zip_path=tmp_path / "bad.zip")


def test_simulate_shows_the_student_and_the_instructor_their_views():
    results = {"score": 18, "output": "**Score 18 / 20.**", "extra_data": {"isolation_level": "contained", "seed": 5},
               "tests": [{"name": "collate/a", "score": 18, "max_score": 18, "status": "passed"},
                         {"name": "collate/b", "score": 0, "max_score": 2, "status": "failed", "visibility": "hidden"}]}
    student = simulate_gradescope.student_view(results)
    assert student.startswith("score: 18 / 20") and "collate/a" in student and "collate/b" not in student
    staff = simulate_gradescope.instructor_view(results, "isolation: contained (x)\nseed of record: 5\n")
    assert "isolation: contained" in staff and "seed: 5" in staff


def test_reports_name_the_students_own_folder_or_repository(tmp_path):
    from grader.tools.class_grading.grade_class import origin
    from grader.tools.intake.deadline_record import Submission

    assert origin(tmp_path / "bob", None, None) == str(tmp_path / "bob")
    recorded = Submission(repository="course/lab-bob", commit="0123456789abcdef", server_time="t", source="push")
    assert origin(None, recorded, "https://github.com") == "https://github.com/course/lab-bob @ 0123456789ab"
    assert origin(tmp_path / "bob", recorded, None) == f"{tmp_path / 'bob'} @ 0123456789ab"


@pytest.mark.slow
def test_the_example_class_is_what_it_says_and_the_review_finds_its_pair(tmp_path):
    """The class of six of dry-run --example-class, without grading it (the slow part, which dry_run's own tests
    cover): the renamed copy still passes the quick public tests, and the review lists exactly the pair, with the
    stubs and the reference subtracted, as the dry run reviews."""
    import shutil
    import subprocess
    import sys

    from grader.paths import REPO
    from grader.tools.authoring.example_class import make_example_class

    students = make_example_class(tmp_path / "class")
    assert sorted(s.name for s in students) == sorted(p.name for p in (tmp_path / "class").iterdir() if p.is_dir())
    assert len(students) == 6
    assert (tmp_path / "class" / "lab-stubs" / "collate.py").read_text() == (REPO / "exercises" / "collate.py").read_text()
    package = tmp_path / "renamed"
    shutil.copytree(tmp_path / "class" / "lab-pair-b", package)
    for name in ("__init__.py", "lab.py"):
        shutil.copy2(REPO / "solutions" / name, package / name)
    quick = subprocess.run([sys.executable, "-m", "pytest", "tests", "--impl", "renamed", "-m", "not workers", "-q",
                            "-p", "no:cacheprovider"], cwd=REPO, env={**__import__("os").environ, "PYTHONPATH": str(tmp_path)},
                           capture_output=True, text=True, timeout=300)
    assert quick.returncode == 0, quick.stdout[-3000:]
    found = review.review(tmp_path / "class", tmp_path / "review", reference=REPO / "solutions")
    copied = [p for p in found["pairs"] if {p.first, p.second} == {"lab-pair-a", "lab-pair-b"}]
    assert copied and found["pairs"][0] in copied and all(p.similarity > 0.8 for p in copied), found["pairs"]
    others = [p for p in found["pairs"] if p not in copied]
    assert all(p.similarity < copied[-1].similarity for p in others), found["pairs"]
    assert (tmp_path / "class" / "README.md").is_file()
    again = make_example_class(tmp_path / "class")  # an earlier example class is replaced
    assert [s.name for s in again] == [s.name for s in students]
    (tmp_path / "class" / "notes.txt").write_text("mine")
    with pytest.raises(FileExistsError):
        make_example_class(tmp_path / "class")
