"""Right answers score full marks at level "contained" too: the kernel's layers never cost an honest answer a point.

Without namespaces (Gradescope's container, a rootless runner) the zygote's
Landlock domain and seccomp filter are all that stand between student code
and the machine, and DataLoader workers of every start method run inside
them. Each grading here holds one right answer per exercise (the corpus's
right answers dealt out in rounds, the reference filling the gaps; only the
round's exercises graded), with the jail off and the layers on, so every right answer is graded once
at this level in a handful of gradings. (In the jail, test_corpus_answers.py
grades each of them.)
"""

from __future__ import annotations

import shutil

import pytest

from grader.engine.runner import grade
from grader.registry import EXERCISES
from grader.sandbox.expected import expected_isolation
from grader.tools.authoring import corpus

SEED = 4
RIGHT = corpus.entries("right")
pytestmark = pytest.mark.slow


def rounds() -> list[dict[str, corpus.CorpusEntry]]:
    """Right answers dealt out so that each round holds at most one per exercise."""
    by_exercise = {name: [e for e in RIGHT if e.exercise == name] for name in EXERCISES}
    return [{name: entries[i] for name, entries in by_exercise.items() if i < len(entries)}
            for i in range(max(len(entries) for entries in by_exercise.values()))]


def test_every_right_answer_is_in_a_round():
    assert sorted(e.id for r in rounds() for e in r.values()) == sorted(e.id for e in RIGHT)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("round_", rounds(), ids=lambda r: "+".join(e.name for e in r.values()))
def test_right_answers_score_full_marks_when_contained(round_, tmp_path):
    if expected_isolation(jail="off").level != "contained":
        pytest.skip(f"no contained level here: {expected_isolation(jail='off').reason}")
    folder = tmp_path / "submission"
    folder.mkdir()
    for name in EXERCISES:
        if name in round_:
            (folder / f"{name}.py").write_text(round_[name].source())
        else:
            shutil.copyfile(corpus.SOLUTIONS / f"{name}.py", folder / f"{name}.py")
    result = grade(folder, seed=SEED, only=list(round_), jail="off", min_isolation="contained")
    assert result.isolation["level"] == "contained", result.isolation
    lost = [(e.name, c.name, c.status, c.message[:300]) for e in result.exercises for c in e.checks
            if c.status not in ("passed", "skipped")]
    assert result.score == result.max_score and not lost, lost
