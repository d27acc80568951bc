"""Secret per-student seeds, the grader's identity and regrades that replay exactly (grader/docs/DESIGN.md, principle 8).

* The seed of record is HMAC-SHA256(course key, student id) cut to 31 bits.
* Two students with identical files get different inputs under a key and the
  same inputs without one: their collate.py prints the lengths of every batch
  it is given, which the report keeps as each check's output.
* On the class of 30 (graded with a key by its workflow): every report holds
  its student's seed of record and says it is secret; no feedback file holds
  it; ``grade --seed`` with a recorded seed reproduces the report exactly
  (durations, timestamps, paths, pids and sizes normalised).
* The grader's hash is the same in the instructor repository, a published
  grader and the Gradescope zip, and changes with any file of the grader; a
  regrade after a deliberate change to one check reports the hash and the check.
"""

from __future__ import annotations

import hashlib
import hmac
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.engine import seeds
from grader.engine.provenance import grader_hash
from grader.engine.results import GradeResult
from grader.paths import REPO
from grader.registry import CONTRACT_FILES
from grader.tests.class_of_30 import shared_class
from grader.tests.test_class_of_30 import SEED_KEY
from grader.tools.class_grading.grade_class import run_batch
from grader.tools.class_grading.regrade_diff import comparable
from grader.tools.delivery.host_bundles import SEED_KEY_FILE, gradescope_zip
from grader.tools.delivery.published_grader import publish

KEY = b"a course key"
#: The seeds of record of ada and ben under KEY: a change of the derivation would regrade every course differently.
ADA, BEN = 1005719941, 1095792070


def test_the_seed_is_the_hmac_of_the_student_cut_to_31_bits():
    assert seeds.student_seed(KEY, "ada") == int.from_bytes(hmac.new(KEY, b"ada", hashlib.sha256).digest()[:4], "big") & 0x7FFFFFFF
    assert (seeds.student_seed(KEY, "ada"), seeds.student_seed(KEY, "ben")) == (ADA, BEN), "the seeds of record never move"
    values = {seeds.student_seed(KEY, f"student{i}") for i in range(200)}
    assert len(values) == 200 and all(0 <= v < 2**31 for v in values)
    assert seeds.student_seed(b"another key", "ada") != seeds.student_seed(KEY, "ada")
    assert seeds.key_from_environment({"GRADER_SEED_KEY": "  k \n"}) == b"k"
    assert seeds.key_from_environment({"GRADER_SEED_KEY": ""}) is None and seeds.key_from_environment({}) is None
    with pytest.raises(ValueError):
        seeds.student_seed(b"", "ada")


def test_the_push_feedback_seed_is_a_public_function_of_the_repository():
    """Anyone can compute it (SHA-256 of a label and the name, case folded); no course key enters it."""
    expected = int.from_bytes(hashlib.sha256(seeds.FEEDBACK_SEED_LABEL + b"course/ada-lab").digest()[:4], "big") & 0x7FFFFFFF
    assert seeds.feedback_seed("course/ada-lab") == seeds.feedback_seed(" Course/Ada-Lab\n") == expected
    assert seeds.feedback_seed("course/ben-lab") != expected and 0 <= expected < 2**31
    assert expected != seeds.student_seed(KEY, "course/ada-lab")
    with pytest.raises(ValueError, match="owner/name"):
        seeds.feedback_seed("  ")


def _printing_class(root: Path) -> Path:
    """Two students, the same five files: the reference, whose pad_collate also prints the lengths it is given."""
    collate = (REPO / "solutions" / "collate.py").read_text()
    marker = "    ### BEGIN SOLUTION\n"
    assert collate.count(marker) == 1
    collate = collate.replace(marker, marker + '    print("lengths", [len(x) for x in batch])\n')
    for student in ("twin-a", "twin-b"):
        for name in CONTRACT_FILES:
            (root / student).mkdir(parents=True, exist_ok=True)
            shutil.copyfile(REPO / "solutions" / name, root / student / name)
        (root / student / "collate.py").write_text(collate)
    return root


def _outputs(out: Path, student: str) -> tuple[int, bool, dict]:
    report = json.loads((out / "results" / f"{student}.json").read_text())
    # The printed lines as a sorted list: two workers' prints interleave in no fixed order.
    checks = {c["name"]: sorted(c["output"].splitlines()) for e in report["exercises"] for c in e["checks"]}
    assert any("lengths [" in line for lines in checks.values() for line in lines), "the prints reached the report"
    return report["seed"], report["seed_secret"], checks


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_identical_files_get_different_inputs_under_a_key_and_the_same_without(tmp_path):
    submissions = _printing_class(tmp_path / "class")
    extra = ["--only", "collate", "--gpu", "off", "--min-isolation", "weak"]
    with_key = run_batch(submissions, tmp_path / "keyed", jobs=2, seed=0, extra=extra, seed_key=KEY)
    without = run_batch(submissions, tmp_path / "class-seed", jobs=2, seed=0, extra=extra)
    assert [r[2] for r in with_key + without] == [""] * 4, "every student graded"
    (seed_a, secret_a, out_a), (seed_b, secret_b, out_b) = (_outputs(tmp_path / "keyed", s) for s in ("twin-a", "twin-b"))
    assert (seed_a, seed_b) == (seeds.student_seed(KEY, "twin-a"), seeds.student_seed(KEY, "twin-b"))
    assert secret_a and secret_b and seed_a != seed_b
    assert out_a != out_b, "under a key the twins were given different batches"
    (plain_a, open_a, same_a), (plain_b, open_b, same_b) = (_outputs(tmp_path / "class-seed", s) for s in ("twin-a", "twin-b"))
    assert plain_a == plain_b == 0 and not open_a and not open_b
    assert same_a == same_b, "without a key the twins were given the same batches"
    for folder, seed in (("keyed", seed_a), ("class-seed", 0)):
        feedback = (tmp_path / folder / "feedback" / "twin-a.md").read_text()
        assert (f"Seed: {seed} (" in feedback) is (folder == "class-seed"), "a secret seed never reaches the feedback"
        assert "--seed" not in feedback, "the feedback offers no command the student cannot run"
    summary = (tmp_path / "class-seed" / "summary.md").read_text()
    assert "2 of 2 graded students got a seed that is not secret" in summary
    assert "a secret seed of record per student" in (tmp_path / "keyed" / "summary.md").read_text()


@pytest.mark.slow
def test_batch_says_when_it_has_no_key(tmp_path):
    (tmp_path / "class" / "ada").mkdir(parents=True)
    env = {k: v for k, v in os.environ.items() if k != "GRADER_SEED_KEY"}
    done = subprocess.run([sys.executable, "-m", "grader", "batch", str(tmp_path / "class"), "--out", str(tmp_path / "out"),
                           "--min-isolation", "weak", "--seed", "7"], cwd=REPO, capture_output=True, text=True, env=env,
                          timeout=300)
    assert done.returncode == 0, done.stderr
    assert "no course key in $GRADER_SEED_KEY: every student gets the class seed 7" in done.stderr


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_every_report_of_the_class_holds_its_secret_seed_and_no_feedback_does(graded):
    results = Path(graded["results_dir"])
    for name, student in shared_class().students.items():
        if "error" in student:
            continue
        report = json.loads((results / f"{name}.json").read_text())
        seed = seeds.student_seed(SEED_KEY.encode(), name)
        assert report["seed"] == seed and report["seed_secret"] is True, name
        feedback = graded["feedback"][name]
        assert str(seed) not in feedback and "Seed: secret" in feedback, name
        assert len(report["grader_sha256"]) == 64 and report["environment"]["isolation"] == "jail"
        assert {"python", "torch", "numpy", "os", "cpu", "gpu", "start_methods"} <= set(report["environment"])
    assert str(seeds.student_seed(SEED_KEY.encode(), "ada")) not in graded["summary"]
    assert "a secret seed of record per student" in graded["summary"]
    hashes = {row["grader_sha256"] for row in graded["rows"] if row["status"] == "graded"}
    workspace = Path(graded["slices_dir"]).parents[1] / "instructor-checkout"  # the grader the workflow ran
    assert hashes == {grader_hash(workspace)} == {grader_hash(REPO)}, "the gradebook names the grader per row: this one"


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_grade_seed_replays_a_student_exactly(graded, tmp_path):
    """max (the reference's collate.py, four stubs), replayed from its five files with its recorded seed."""
    record = json.loads((Path(graded["results_dir"]) / "max.json").read_text())
    replay = tmp_path / "replay.json"
    done = subprocess.run([sys.executable, "-m", "grader", "grade", str(Path(graded["files_dir"]) / "max"), "--quiet",
                           "--secret-seed-fd", "0", "--min-isolation", "jail", "--gpu", "off",
                           "--json", str(replay)], cwd=REPO, capture_output=True, text=True, timeout=600,
                          input=str(record["seed"]))
    assert done.returncode == 0, done.stderr[-3000:]
    again = json.loads(replay.read_text())
    ran = [c for e in record["exercises"] for c in e["checks"] if c["status"] == "passed"]
    assert len(ran) >= 5 and any(e["note"] for e in record["exercises"]), "a replay that compares something"
    assert comparable(again) == comparable(record)


def test_the_grader_hash_is_the_same_wherever_the_grader_is_published(tmp_path):
    here = grader_hash(REPO)
    publish(tmp_path / "published")
    assert grader_hash(tmp_path / "published") == here
    gradescope_zip(tmp_path / "autograder.zip", seed_key=b"k")
    with zipfile.ZipFile(tmp_path / "autograder.zip") as archive:
        archive.extractall(tmp_path / "gradescope")
        assert archive.getinfo(SEED_KEY_FILE).external_attr >> 16 == 0o600
    assert grader_hash(tmp_path / "gradescope") == here
    check = tmp_path / "published" / "grader" / "exercises" / "collate" / "check_collate.py"
    check.write_text(check.read_text() + "\n# a change\n")
    assert grader_hash(tmp_path / "published") != here
    (tmp_path / "published" / "grader" / "exercises" / "collate" / "__pycache__").mkdir(exist_ok=True)
    (tmp_path / "published" / "grader" / "exercises" / "collate" / "__pycache__" / "x.pyc").write_bytes(b"x")
    assert grader_hash(tmp_path / "published") == grader_hash(tmp_path / "published"), "caches are not the grader"


def _gradescope_run(tmp_path: Path, monkeypatch, key: bytes | None, metadata):
    """The bundle's gradescope_run.py, loaded with its key file and submission metadata in ``tmp_path``."""
    monkeypatch.setenv("GRADESCOPE_ROOT", str(tmp_path))
    path = REPO / "grader" / "tools" / "delivery" / "templates" / "gradescope" / "gradescope_run.py"
    spec = importlib.util.spec_from_file_location("gradescope_run_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.KEY_FILE = tmp_path / SEED_KEY_FILE
    if key is not None:
        module.KEY_FILE.write_bytes(key + b"\n")
    if metadata is not None:
        (tmp_path / "submission_metadata.json").write_text(json.dumps(metadata))
    return module


def test_gradescope_grades_with_the_students_seed_of_record(tmp_path, monkeypatch, capsys):
    metadata = {"id": 123456, "users": [{"email": "student@example.com", "id": 1234, "name": "Student User"}]}
    module = _gradescope_run(tmp_path, monkeypatch, KEY, metadata)
    assert module.seed_of_record() == seeds.student_seed(KEY, "1234")
    assert not module.KEY_FILE.exists(), "the key is gone before the student's code runs"
    assert "seed of record" in capsys.readouterr().out
    assert module.seed_of_record() is None, "no key (read once): a fresh seed"
    module.KEY_FILE.write_bytes(KEY)
    (tmp_path / "submission_metadata.json").write_text("{not json")
    assert module.seed_of_record() is None and "WARNING: no student id" in capsys.readouterr().out


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_a_regrade_after_a_change_to_one_check_names_the_grader_and_the_check(graded, tmp_path):
    """max's report of record, regraded by a copy of the grader whose collate check of right padding always fails."""
    copy = tmp_path / "grader-copy"
    shutil.copytree(REPO / "grader", copy / "grader", ignore=shutil.ignore_patterns("tests", "__pycache__"))
    for name in ("lab.toml", "requirements.txt"):
        shutil.copy(REPO / name, copy / name)
    check = copy / "grader" / "exercises" / "collate" / "check_collate.py"
    check.write_text(check.read_text() + (
        "\n\n_checked = check_input_ids_are_right_padded\n\n\n"
        "def check_input_ids_are_right_padded(ctx):\n"
        "    from grader.engine.checking import CheckFailed\n\n"
        "    raise CheckFailed('deliberately changed')\n\n\n"
        "check_input_ids_are_right_padded.__doc__ = _checked.__doc__\n"))
    report = Path(graded["results_dir"]) / "max.json"
    done = subprocess.run([sys.executable, "-m", "grader", "regrade", str(report), str(Path(graded["files_dir"]) / "max"),
                           "--json", str(tmp_path / "again.json")], cwd=copy, capture_output=True, text=True, timeout=600)
    assert done.returncode == 1, done.stdout + done.stderr[-3000:]
    record = GradeResult.from_dict(json.loads(report.read_text()))
    new_hash = grader_hash(copy)
    assert f"grader: {record.grader_sha256} (version {record.grader_version}) -> {new_hash} (version {new_hash[:12]})" in done.stdout
    assert "check collate/input_ids_are_right_padded: passed" in done.stdout and "-> failed 0/" in done.stdout
    assert "deliberately changed" in done.stdout
    changed = [line for line in done.stdout.splitlines() if line.strip().startswith("check ")]
    assert len(changed) == 1, done.stdout
    assert "score:" in done.stdout and "3 difference(s)" in done.stdout
