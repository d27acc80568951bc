"""The grader against the answer corpus (grader/tests/corpus/, see grader/corpus.py).

* Every wrong answer loses points in its own exercise, with a message.
* Every right answer, written differently from the reference, scores full
  marks. A right answer that loses points is a bug in a check or a probe,
  never in the answer.
* A mistake in one exercise costs points nowhere else.

Grading runs in-process (``grader.engine.runner.grade``), one exercise at a time,
on the reference solutions with the corpus file swapped in. The grading
tests are marked slow (about 3-15 s each, several minutes in all); the
structural tests at the top are fast.
"""

from __future__ import annotations

import pytest

from grader.engine.runner import grade
from grader.registry import EXERCISES
from grader.tools import corpus

SEED = 4
"""One fixed seed, so that a failure replays: python -m grader grade <folder> --only <exercise> --seed 4."""

WRONG = corpus.entries("wrong")
RIGHT = corpus.entries("right")
MIN_WRONG, MIN_RIGHT = 10, 4

def corpus_files(kind):
    return sorted((corpus.CORPUS / kind).rglob("*.py"))


# ---------------------------------------------------------------- fast: the corpus itself


@pytest.mark.parametrize("kind", corpus.KINDS)
def test_every_corpus_file_has_a_valid_header(kind):
    files = corpus_files(kind)
    assert files, f"no files under {corpus.CORPUS / kind}"
    for path in files:
        header_kind, claim, _hidden = corpus.validate_header(path)
        assert header_kind == kind, f"{path} is under {kind}/ but starts with '# {header_kind.upper()}:'"
        assert len(claim) > 15, f"{path}: say what is wrong (or different) in a sentence, not {claim!r}"
        assert path.parent.parent == corpus.CORPUS / kind and path.parent.name in EXERCISES, \
            f"{path} must be at {kind}/<exercise>/<name>.py"


def test_validate_header_rejects_a_missing_or_empty_header(tmp_path):
    for text in ('"""docstring first"""\n', "# WRONG:\n", "#WRONG: no space\n", "# wrong: lower case\n", ""):
        path = tmp_path / "x.py"
        path.write_text(text)
        with pytest.raises(ValueError):
            corpus.validate_header(path)
    path.write_text("# RIGHT: uses pad_sequence\nimport torch\n")
    assert corpus.validate_header(path) == ("right", "uses pad_sequence", "")
    path.write_text("# WRONG: sorts everything\n# HIDDEN: a property of the sampler's randomness\n")
    assert corpus.validate_header(path) == ("wrong", "sorts everything", "a property of the sampler's randomness")
    path.write_text("# RIGHT: fine\n# HIDDEN: a right answer has nothing to hide\n")
    with pytest.raises(ValueError, match="only a wrong answer"):
        corpus.validate_header(path)


@pytest.mark.parametrize("exercise", EXERCISES)
def test_enough_answers_per_exercise(exercise):
    wrong = [e.name for e in WRONG if e.exercise == exercise]
    right = [e.name for e in RIGHT if e.exercise == exercise]
    assert len(wrong) >= MIN_WRONG, f"{exercise}: {len(wrong)} wrong answers, want at least {MIN_WRONG}"
    assert len(right) >= MIN_RIGHT, f"{exercise}: {len(right)} right answers, want at least {MIN_RIGHT}"


def test_names_are_unique():
    """A name alone identifies an entry (in messages, in commit logs), across kinds and exercises."""
    names = [e.name for e in WRONG + RIGHT]
    duplicates = sorted({n for n in names if names.count(n) > 1})
    assert not duplicates, f"corpus names used more than once: {duplicates}"


@pytest.mark.parametrize("kind", corpus.KINDS)
def test_every_corpus_file_compiles(kind):
    for path in corpus_files(kind):
        compile(path.read_text(encoding="utf-8"), str(path), "exec")


def test_assemble_swaps_in_only_the_entry(tmp_path):
    entry = WRONG[0]
    folder = corpus.assemble(entry, tmp_path / "submission")
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{e}.py" for e in EXERCISES)
    for exercise in EXERCISES:
        source = entry.path if exercise == entry.exercise else corpus.SOLUTIONS / f"{exercise}.py"
        assert (folder / f"{exercise}.py").read_bytes() == source.read_bytes()


# ---------------------------------------------------------------- slow: grading the corpus


def grade_entry(entry, tmp_path, only=True, fail_fast=False):
    folder = corpus.assemble(entry, tmp_path / "submission")
    return grade(folder, seed=SEED, only=[entry.exercise] if only else None, fail_fast=fail_fast)


def not_passed(exercise_result):
    return [c for c in exercise_result.checks if c.status not in ("passed", "skipped")]


def describe(checks):
    return "\n".join(f"  {c.name}: {c.status}\n    " + c.message.replace("\n", "\n    ") for c in checks)


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("entry", WRONG, ids=[e.id for e in WRONG])
def test_wrong_answer_loses_points_with_a_message(entry, tmp_path):
    (result,) = grade_entry(entry, tmp_path, fail_fast=True).exercises  # one failed check is the evidence
    assert result.score < result.max_score, (
        f"{entry.id} scored full marks although it is wrong: {entry.claim}\n"
        "Either a check misses this broken promise (strengthen it), or the docstring leaves it open (drop the entry).")
    lost = [c for c in not_passed(result) if c.max_score > 0]
    assert lost, f"{entry.id} lost points but no check with points failed"
    assert any(c.message.strip() for c in lost), f"{entry.id}: the failed checks give the student no message:\n{describe(lost)}"


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("entry", RIGHT, ids=[e.id for e in RIGHT])
def test_right_answer_scores_full_marks(entry, tmp_path):
    (result,) = grade_entry(entry, tmp_path).exercises
    failed = not_passed(result)
    assert result.score == result.max_score and not failed, (
        f"{entry.id} is right ({entry.claim}) but scored {result.score}/{result.max_score}. "
        f"That is a bug in a check or probe:\n{describe(failed)}")


# Two mutants only: grading all five exercises costs about 30-60 s per submission.
# Each probe loads only the graded exercise's file, so the other exercises cannot
# see the mutant; these two show it end to end.
ISOLATION = ["wrong/seeding/no_modulo_2_32", "wrong/bucketing/global_sort_no_shuffle"]


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("entry_id", ISOLATION)
def test_a_mistake_costs_points_nowhere_else(entry_id, tmp_path):
    (entry,) = [e for e in WRONG if e.id == entry_id]
    result = grade_entry(entry, tmp_path, only=False)
    assert [e.name for e in result.exercises] == list(EXERCISES)
    for exercise in result.exercises:
        if exercise.name == entry.exercise:
            assert exercise.score < exercise.max_score, f"{entry_id} lost no points in {exercise.name}"
        else:
            assert exercise.score == exercise.max_score, \
                f"{entry_id} (a mistake in {entry.exercise}) cost points in {exercise.name}:\n{describe(not_passed(exercise))}"
