"""``python -m grader review``: the instructor's private review (grader/docs/DESIGN.md, principle 8).

On the class of 30, as its workflow's merge job made it (test_class_of_30.py):
kim's bucketing.py is dee's right answer with its variables renamed and its
layout redone, eli's collate.py walks the interpreter's frames, tia's forges a
result frame on fd 3, and everyone else is honest. The copy pair tops the
similarity list, the frame walker and the forger are listed with their
constructs and lines, no honest student is listed, and the review runs
without a network. The scan itself finds nothing in the reference, the stubs
or any answer of the right and wrong corpora, and follows the usual disguises.
"""

from __future__ import annotations

import csv
import io
import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.paths import REPO
from grader.registry import EXERCISES
from grader.tests.class_of_30 import FRAME_WALK, shared_class
from grader.tools.authoring import corpus
from grader.tools.class_grading.constructs import scan_source

HONEST_KINDS = ("honest",)


def _csv(text: str) -> list[dict]:
    return list(csv.DictReader(io.StringIO(text)))


# --------------------------------------------------------------------------
# The scan
# --------------------------------------------------------------------------


def test_no_construct_in_honest_code():
    """The reference, the stubs and every answer of the right and wrong corpora: nothing to list."""
    sources = {str(p): (p.read_bytes(), p.name) for p in [*(REPO / "solutions").glob("*.py"), *(REPO / "exercises").glob("*.py")]}
    sources |= {e.id: (e.source().encode(), e.module) for kind in ("right", "wrong") for e in corpus.entries(kind)}
    assert len(sources) > 60
    found = {name: scan_source(data, file) for name, (data, file) in sources.items()}
    assert {p: f for p, f in found.items() if f != ([], "")} == {}


@pytest.mark.parametrize("code, construct", [
    ("import sys\nf = sys._getframe(1)\n", "frame inspection"),
    ("from sys import _getframe as look\nlook()\n", "frame inspection"),
    ("import sys as s\nx = getattr(s, '_getframe')()\n", "frame inspection"),
    ("import inspect\nx = inspect.currentframe().f_back.f_locals\n", "frame inspection"),
    ("def f(tb):\n    return tb.tb_frame\n", "frame inspection"),
    ("import os\nos.write(3, b'{}')\n", "file-descriptor I/O"),
    ("open(3, 'wb').write(b'x')\n", "file-descriptor I/O"),
    ("x = open(f'/proc/{1}/environ').read()\n", "a /proc path"),
    ("__import__('ctypes').CDLL(None)\n", "ctypes (C functions and raw memory)"),
    ("import importlib\nimportlib.import_module('ctypes')\n", "ctypes (C functions and raw memory)"),
    ("import gc\nx = gc.get_referrers(object)\n", "garbage-collector walk"),
    ("import sys\nsys.setprofile(print)\n", "trace, profile or audit hook"),
    ("import threading\nthreading.settrace(print)\n", "trace, profile or audit hook"),
    ("import base64\nexec(base64.b64decode('cHJpbnQoMSk='))\n", "exec() of text decoded at run time"),
    ("eval(bytes.fromhex('31').decode())\n", "eval() of text decoded at run time"),
    ("import codecs\nexec(codecs.decode('cevag(1)', 'rot13'))\n", "exec() of text decoded at run time"),
    ("import grader.sandbox.child\n", "imports the grader's own code"),
    ("import os\nos._exit(0)\n", "process control (signals, exits, forks)"),
])
def test_each_construct_is_found_with_its_line(code, construct):
    source = ("# an answer\n\n" + code).encode()
    found, note = scan_source(source, "collate.py")
    assert note == ""
    assert construct in {f.construct for f in found}, found
    line = next(f.line for f in found if f.construct == construct)
    assert source.decode().splitlines()[line - 1].strip() == next(f.code for f in found if f.line == line)
    assert line >= 3, "the line of the construct, not of the file's start"


def test_code_that_does_not_parse_is_a_note_not_a_crash():
    assert scan_source(b"def f(:\n", "sharding.py")[1].startswith("sharding.py is not valid Python (line 1")
    assert scan_source(b"\xff\xfe", "seeding.py")[0] == []
    deep = b"x = " + b"(" * 200_000 + b")" * 200_000 + b"\n"
    found, note = scan_source(deep, "tokens.py")
    assert found == [] and "tokens.py" in note


# --------------------------------------------------------------------------
# The command's errors
# --------------------------------------------------------------------------


def review(*args: str, cwd: Path = REPO) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "grader", "review", *args], cwd=cwd, capture_output=True, text=True,
                          timeout=300)


@pytest.mark.parametrize("case", ["missing", "a file", "empty", "bad results", "bad reference", "bad threshold"])
def test_bad_input_is_a_clear_error(case, tmp_path):
    (tmp_path / "class" / "ada").mkdir(parents=True)
    (tmp_path / "a-file").write_text("x")
    (tmp_path / "empty").mkdir()
    args = {"missing": [str(tmp_path / "nowhere")], "a file": [str(tmp_path / "a-file")], "empty": [str(tmp_path / "empty")],
            "bad results": [str(tmp_path / "class"), "--results", str(tmp_path / "empty")],
            "bad reference": [str(tmp_path / "class"), "--reference", str(tmp_path / "nowhere")],
            "bad threshold": [str(tmp_path / "class"), "--threshold", "1.5"]}[case]
    done = review(*args, "--out", str(tmp_path / "out"))
    assert done.returncode == 2, done
    assert "Traceback" not in done.stderr and "error:" in done.stderr, done.stderr
    expected = {"missing": "does not exist", "a file": "is not a folder", "empty": "holds no student folders",
                "bad results": "not a batch output folder", "bad reference": "does not exist",
                "bad threshold": "threshold must be from 0 to 1"}[case]
    assert expected in done.stderr, done.stderr


# --------------------------------------------------------------------------
# The class of 30
# --------------------------------------------------------------------------


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_copy_pair_tops_the_similarity_list(graded):
    pairs = _csv(graded["review"]["pairs.csv"])
    assert pairs, graded["review"]["review.md"]
    top = pairs[0]
    assert (top["exercise"], {top["student_a"], top["student_b"]}) == ("bucketing", {"dee", "kim"}), pairs[:3]
    assert float(top["similarity"]) >= 0.9 and float(top["share_a"]) >= 0.9 and float(top["share_b"]) >= 0.9
    assert "| bucketing | dee | kim |" in graded["review"]["review.md"]
    assert graded["review_html"] == sorted(f"{e}.html" for e in EXERCISES)


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_honest_students_are_not_listed(graded):
    students = shared_class().students
    honest = {name for name, s in students.items() if s["kind"] in HONEST_KINDS}
    listed_pairs = [p for p in _csv(graded["review"]["pairs.csv"]) if {p["student_a"], p["student_b"]} != {"dee", "kim"}]
    assert [p for p in listed_pairs if {p["student_a"], p["student_b"]} & honest] == []
    constructs = _csv(graded["review"]["constructs.csv"])
    assert {c["student"] for c in constructs} & honest == set(), constructs


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_frame_walker_and_the_forger_are_listed_with_construct_and_line(graded):
    constructs = _csv(graded["review"]["constructs.csv"])
    walker = [c for c in constructs if c["student"] == "eli"]
    reference_lines = len((REPO / "solutions" / "collate.py").read_text().splitlines())
    walk_lines = FRAME_WALK.splitlines()
    getframe = reference_lines + next(i for i, line in enumerate(walk_lines) if "_getframe" in line) + 1
    back = reference_lines + next(i for i, line in enumerate(walk_lines) if "f_back" in line) + 1
    assert {(c["file"], int(c["line"]), c["construct"]) for c in walker} == {
        ("collate.py", getframe, "frame inspection"), ("collate.py", back, "frame inspection")}, walker
    forger = {(c["file"], c["construct"]) for c in constructs if c["student"] == "tia"}
    assert ("collate.py", "file-descriptor I/O") in forger, constructs
    tia_line = next(int(c["line"]) for c in constructs if c["student"] == "tia" and c["construct"] == "file-descriptor I/O")
    source = (corpus.CORPUS / "hostile" / "forged_huge_error" / "collate.py").read_text().splitlines()
    assert "os.write(3" in source[tia_line - 1]
    assert "eli" in graded["review"]["review.md"] and "collate.py:" in graded["review"]["review.md"]


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_review_lists_the_grading_flags_and_the_rows_without_a_grade(graded):
    flags = _csv(graded["review"]["flags.csv"])
    students = shared_class().students
    for name, student in students.items():
        for flag in student.get("flags", []):
            assert any(f["student"] == name and flag in f["flag"] for f in flags), (name, flag)
        if "error" in student:
            assert any(f["student"] == name and f["flag"].startswith("not graded:") for f in flags), name
    assert graded["review"]["review.md"].startswith("# Review of the class (private")


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_review_changes_no_score_and_says_what_it_cost(graded):
    rows = {r["student"]: r for r in graded["rows"]}
    for name in ("kim", "eli"):
        assert {e: float(rows[name][e]) for e in shared_class().students[name]["scores"]} == shared_class().students[name]["scores"]
        assert rows[name]["integrity_flags"] == "", "the grading raises no flag for either: only the review shows them"
    log = graded["logs"]["merge"]["Review"]
    assert "review written to review/review.md in" in log, log
    print(f"the review of the class of 30: {log.strip().splitlines()[-1]}")


@pytest.mark.slow
@pytest.mark.timeout(1800)
def test_the_review_runs_without_a_network(graded, tmp_path):
    """The pair and the walker again, in a network namespace of their own (nothing but loopback, which is down)."""
    if shutil.which("unshare") is None or subprocess.run(["unshare", "--net", "true"], capture_output=True).returncode:
        pytest.skip("cannot make a network namespace here (unshare --net)")
    files = Path(graded["files_dir"])
    subset = tmp_path / "subset"
    for name in ("dee", "kim", "eli", "ada"):
        shutil.copytree(files / name, subset / name)
    done = subprocess.run(["unshare", "--net", sys.executable, "-m", "grader", "review", str(subset), "--reference",
                           str(REPO / "solutions"), "--out", str(tmp_path / "out")], cwd=REPO, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    pairs = _csv((tmp_path / "out" / "pairs.csv").read_text())
    assert {pairs[0]["student_a"], pairs[0]["student_b"]} == {"dee", "kim"}
    assert "eli" in (tmp_path / "out" / "constructs.csv").read_text()


@pytest.mark.slow
def test_the_similarity_is_the_same_in_every_run(tmp_path):
    """copydetect's winnowing picks fingerprints by Python's string hash, which changes with PYTHONHASHSEED: with every
    k-gram a fingerprint, two runs of the review agree to the last digit."""
    answers = [e for e in corpus.entries("right") if e.exercise == "bucketing" and "slow" not in e.name][:4]
    for index, entry in enumerate(answers):
        (tmp_path / "class" / f"s{index}").mkdir(parents=True)
        (tmp_path / "class" / f"s{index}" / "bucketing.py").write_text(entry.source())
    tables = []
    for hash_seed in ("1", "2"):
        out = tmp_path / f"out-{hash_seed}"
        done = subprocess.run([sys.executable, "-m", "grader", "review", str(tmp_path / "class"), "--threshold", "0",
                               "--out", str(out)], cwd=REPO, capture_output=True, text=True, timeout=300,
                              env={**os.environ, "PYTHONHASHSEED": hash_seed})
        assert done.returncode == 0, done.stderr[-2000:]
        tables.append((out / "pairs.csv").read_text())
    assert tables[0] == tables[1] and len(tables[0].splitlines()) == 1 + 6, tables


# --------------------------------------------------------------------------
# Built names, and a review bounded per student (issue 31)
# --------------------------------------------------------------------------

#: The third red team's spellings: 0 findings before constant folding, where the plain spellings give 5.
BUILT = ('import sys, os, base64\nfrom importlib import import_module\n'
         'f = vars(sys)["_get" + "frame"](0)\n'
         'b = getattr(f, "f_" + "back")\n'
         'm = import_module("ct" + "ypes")\n'
         'e = os.__dict__["_" + "exit"]\n'
         'p = "/" + "proc"\n'
         'q = "".join(["/pr", "oc"]) + f"{\'/self\'}/maps"\n'
         'r = bytes.fromhex("2f70726f63").decode()\n'
         't = base64.b64decode("L3Byb2M=")\n'
         'u = __import__(f"{\'s\'}ys")._getframe\n')


def test_names_built_from_constants_are_folded_before_matching():
    found, note = scan_source(BUILT.encode(), "collate.py")
    assert note == ""
    by_line = {}
    for f in found:
        by_line.setdefault(f.line, set()).add(f.construct)
    built = "a name built from string pieces (getattr, vars, __dict__ or an import)"
    assert by_line == {
        3: {"frame inspection", built}, 4: {"frame inspection", built},
        5: {"ctypes (C functions and raw memory)", built}, 6: {"process control (signals, exits, forks)", built},
        7: {"a /proc path"}, 8: {"a /proc path"}, 9: {"a /proc path"}, 10: {"a /proc path"},
        11: {"frame inspection", built}}, by_line


def test_a_file_of_findings_is_scanned_in_linear_time_with_a_count_of_the_rest():
    """5k ``os.dup`` lines (main compared each finding with every earlier one: 11 s, 69 s for 20k): every use counted,
    20 listed."""
    from grader.tools.class_grading.constructs import MAX_PER_CONSTRUCT

    source = b"import os\nif 0:\n" + b"".join(b" os.dup(%d)\n" % (i % 10) for i in range(5_000))
    found, note = scan_source(source, "collate.py")
    assert len(found) == MAX_PER_CONSTRUCT and {f.construct for f in found} == {"file-descriptor I/O"}
    assert f"{5_000 - MAX_PER_CONSTRUCT} more file-descriptor I/O not listed" in note, note


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_one_megabyte_of_findings_does_not_stop_the_class_review(tmp_path):
    """The red team's file: a right collate.py with ~1 MB of ``os.dup(...)`` lines in an ``if 0:`` block (main's scan
    gave no output after 600 s). With a budget of 5 s per student, the class's review is written in full; the bound:
    one parse of the file (a few seconds for 1 MB; the parse cannot be cut short) plus the budget, plus copydetect on
    at most 64 KB of it. The student is listed as over a limit, the honest two are not, and their pair is found."""
    from grader.tools.class_grading.integrity_review import MAX_FILE_BYTES

    klass = tmp_path / "class"
    right = (REPO / "solutions" / "collate.py").read_bytes()
    for name in ("ada", "bob"):
        (klass / name).mkdir(parents=True)
        (klass / name / "collate.py").write_bytes(right)
    block = b"\nimport os\nif 0:\n" + b" os.dup(0)\n" * ((MAX_FILE_BYTES - len(right) - 20) // 11)
    (klass / "mal").mkdir()
    (klass / "mal" / "collate.py").write_bytes(right + block)
    assert MAX_FILE_BYTES - 64 < len(right + block) <= MAX_FILE_BYTES
    done = review(str(klass), "--student-budget", "5", "--out", str(tmp_path / "out"))
    assert done.returncode == 0, done.stderr[-3000:]
    report = (tmp_path / "out" / "review.md").read_text()
    over = report.split("## Over a limit", 1)[1].split("\n## ", 1)[0]
    assert "- mal: over" in over and "ada" not in over and "bob" not in over, over
    constructs = _csv((tmp_path / "out" / "constructs.csv").read_text())
    assert len(constructs) <= 100 and {c["student"] for c in constructs} <= {"mal"}, "the parse alone may use the budget"
    pairs = _csv((tmp_path / "out" / "pairs.csv").read_text())
    assert {pairs[0]["student_a"], pairs[0]["student_b"]} == {"ada", "bob"}, pairs
    assert "it cannot see names that depend on run-time values" in report, "the review says what the scan cannot see"
    print(f"the review of 3 students, one with a 1 MB file of findings: {done.stdout.strip()}")
