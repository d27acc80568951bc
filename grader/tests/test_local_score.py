"""The students' local score (solutions/score.py, shipped as exercises/score.py) says what the public tests show.

It reads tests/promises.toml (grader/tools/authoring/public_promises.py), runs the public tests and prints per
exercise the promises they show kept: none on the stubs, all on the reference, and on a wrong answer the sentence
of the promise it breaks with the test that failed; every run says it is not the grade.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib

import pytest

from grader import registry
from grader.paths import REPO
from grader.tools.authoring import corpus

NOT_THE_GRADE = "This is not your grade."


def score(root, package, *args):
    return subprocess.run([sys.executable, "-m", f"{package}.score", *args], cwd=root, capture_output=True, text=True,
                          timeout=600)


def rows(output):
    """{exercise: (kept, of, failing)} from the printed table."""
    found = {}
    for line in output.splitlines():
        cells = [c.strip() for c in line.strip("|").split("|")]
        if len(cells) == 4 and " of " in cells[1]:
            kept, _, of = cells[1].partition(" of ")
            found[cells[0]] = (int(kept), int(of), int(cells[2]))
    return found


@pytest.mark.slow
@pytest.mark.timeout(900)
def test_the_local_score_of_the_stubs_the_reference_and_a_wrong_answer(tmp_path):
    some = registry.EXERCISES[::2]  # a selection of exercises, as a student may name them
    stubs = score(REPO, "exercises", "--quick", *some)
    assert stubs.returncode == 1 and NOT_THE_GRADE in stubs.stdout, stubs.stdout[-3000:] + stubs.stderr[-2000:]
    assert {name: row[0] for name, row in rows(stubs.stdout).items()} == dict.fromkeys(some, 0), stubs.stdout
    assert f"{some[0]}: not done yet: {some[0]}: " in stubs.stdout, stubs.stdout

    reference = score(REPO, "solutions", "--quick")
    assert reference.returncode == 0 and NOT_THE_GRADE in reference.stdout, reference.stdout[-3000:]
    table = rows(reference.stdout)
    assert list(table) == list(registry.EXERCISES), reference.stdout
    assert all(kept > 0 and failing == 0 for kept, _, failing in table.values()), reference.stdout

    (entry,) = [e for e in corpus.entries("wrong") if e.id == "wrong/collate/left_padding"]
    for name in ("tests", "lab.toml", "pyproject.toml"):
        (shutil.copytree if (REPO / name).is_dir() else shutil.copy2)(REPO / name, tmp_path / name)
    corpus.assemble_package(entry, tmp_path / "exercises")
    shutil.copy2(REPO / "exercises" / "score.py", tmp_path / "exercises" / "score.py")
    wrong = score(tmp_path, "exercises", "--quick", "collate")
    assert wrong.returncode == 1, wrong.stdout[-3000:] + wrong.stderr[-2000:]
    kept, of, failing = rows(wrong.stdout)["collate"]
    assert 0 < failing and kept + failing < of + 1, wrong.stdout
    promises = {p["id"]: p for p in tomllib.loads((REPO / "tests" / "promises.toml").read_text())["promise"]}
    for broken in entry.breaks:
        assert promises[broken]["quote"][:60] in wrong.stdout, f"{broken} is not named:\n{wrong.stdout}"


def test_a_bad_argument_is_refused_with_the_exercises_named():
    done = score(REPO, "solutions", "colate")
    assert done.returncode == 2 and "no exercise colate: the exercises are collate, sharding" in done.stderr, done.stderr
