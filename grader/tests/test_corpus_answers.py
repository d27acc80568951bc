"""The grader against the answer corpus (grader/exercises/<exercise>/corpus/, see grader/tools/authoring/corpus.py).

* Every wrong answer loses points in its own exercise, with a message, and
  fails the checks of the promises its ``# breaks:`` line names and no
  other: one mistake, one deduction, measured (the checks it fails and the
  points it loses go into the JUnit report, which ``python -m grader
  scoreboard`` prints).
* Every right answer, written differently from the reference, scores full
  marks. A right answer that loses points is a bug in a check or a probe,
  never in the answer.
* A mistake in one exercise costs points nowhere else.
* Every wrong answer gets the same verdict from each check that draws from
  the seed under the three seeds of ``seed_invariance.SEEDS``: its grading
  is the first seed's run; the seeded checks (those that call ``ctx.rng``
  on the reference) are run again under the other two, in the same sandbox
  (grader/tests/test_seed_invariance.py says why).

Grading runs in-process (``grader.engine.runner.grade``) on the reference
solutions with the corpus file swapped in: one full grading per answer (of
its exercise, or of all five for the answers that show the isolation), which
serves every assertion about it. The gradings of one exercise share one
sandbox per pytest worker (its zygote and forkserver import only torch and
NumPy; every probe is a fresh child that imports the exercise file anew), the
answer's file swapped into it before its grading (``OneSandbox``,
grader/tests/seed_invariance.py): the same checks, probes, preflight,
confirmation and rubric as a grading of record, without a sandbox start per
answer. The isolation answers are graded as a grading of record is, each in
a sandbox of its own. The grading tests are marked slow (about 2-10 s each,
minutes in all); the structural tests at the top are fast.
"""

from __future__ import annotations

import shutil

import pytest

from grader.engine.runner import grade
from grader.registry import EXERCISES
from grader.tests.seed_invariance import SEEDS, OneSandbox, reference_run, seed_differences
from grader.tools.authoring import answer_regions, corpus
from grader.tools.authoring import contract_table as contract

SEED = SEEDS[0]
"""One fixed seed, so that a failure replays: python -m grader grade <folder> --only <exercise> --seed 4."""

WRONG = corpus.entries("wrong")
RIGHT = corpus.entries("right")
MIN_WRONG, MIN_RIGHT = corpus.MIN_WRONG, corpus.MIN_RIGHT

#: {promise id: the name of its judge (check_ left off, as results name it)}, from the contract table; a shows entry's
#: check (0 points) may fail too, and is named alike.
PROMISE_CHECKS = {e.id: {e.name} for e in contract.load() if e.kind in contract.JUDGED}


def corpus_files(kind):
    return [path for path, _ in corpus.answer_files(kind)]


# ---------------------------------------------------------------- fast: the corpus itself


@pytest.mark.parametrize("kind", corpus.KINDS)
def test_every_corpus_file_has_a_valid_header(kind):
    files = corpus_files(kind)
    assert files, f"no files under grader/exercises/*/corpus/{kind}"
    for path in files:
        header = corpus.validate_header(path)
        assert header.kind == kind, f"{path} is under {kind}/ but starts with '# {header.kind.upper()}:'"
        assert len(header.claim) > 15, f"{path}: say what is wrong (or different) in a sentence, not {header.claim!r}"
        assert path.parent.name == kind and path.parent.parent.parent.name in EXERCISES, \
            f"{path} must be at grader/exercises/<exercise>/corpus/{kind}/<name>.py"


def test_validate_header_rejects_a_missing_or_empty_header(tmp_path):
    path = tmp_path / "x.py"
    region = "### BEGIN SOLUTION pad_collate\n    return {}\n### END SOLUTION\n"
    for text in ('"""docstring first"""\n', "# WRONG:\n", "#WRONG: no space\n", "# wrong: lower case\n", "",
                 "# WRONG: no breaks line\n" + region, "# WRONG: an empty one\n# breaks: \n" + region,
                 "# WRONG: not an id\n# breaks: the labels\n" + region,
                 "# WRONG: an empty witness\n# breaks: collate.labels\n# witness of: test_collate.py::test_a; \n" + region,
                 "# RIGHT: neither regions nor a whole module's reason\nimport torch\n",
                 "# RIGHT: both regions and a whole module's reason\n# WHOLE: why\n" + region):
        path.write_text(text)
        with pytest.raises(ValueError):
            corpus.validate_header(path)
    path.write_text("# RIGHT: uses pad_sequence\n" + region)
    assert corpus.validate_header(path) == corpus.Header("right", "uses pad_sequence")
    path.write_text("# RIGHT: uses pad_sequence\n# WHOLE: it replaces the def itself\nimport torch\n")
    assert corpus.validate_header(path) == corpus.Header("right", "uses pad_sequence")
    path.write_text("# WRONG: sorts everything\n# breaks: bucketing.pools_in_order, bucketing.batch_order_shuffled\n"
                    "# HIDDEN: a property of the sampler's randomness\n" + region)
    assert corpus.validate_header(path) == corpus.Header(
        "wrong", "sorts everything", ("bucketing.pools_in_order", "bucketing.batch_order_shuffled"), "a property of the sampler's randomness")
    path.write_text("# WRONG: left pads\n# breaks: collate.right_padded\n"
                    "# witness of: test_collate.py::test_right_pads; lab c: pools pad little\n" + region)
    assert corpus.validate_header(path).witnesses == ("test_collate.py::test_right_pads", "lab c: pools pad little")
    for second in ("# HIDDEN: a right answer has nothing to hide\n", "# breaks: collate.labels\n",
                   "# witness of: test_collate.py::test_right_pads\n"):
        path.write_text("# RIGHT: fine\n" + second + region)
        with pytest.raises(ValueError, match="only a wrong answer"):
            corpus.validate_header(path)


def test_every_wrong_answer_breaks_promises_of_its_own_exercise():
    for entry in WRONG:
        unknown = [i for i in entry.breaks if i not in PROMISE_CHECKS]
        assert not unknown, f"{entry.id}: # breaks: names {unknown}, which are not promises of its promises.toml"
        foreign = [i for i in entry.breaks if not i.startswith(f"{entry.exercise}.")]
        assert not foreign, f"{entry.id}: # breaks: names promises of another exercise: {foreign}"


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
def test_every_answer_fits_the_reference_and_compiles(kind):
    """Each answer's regions fit today's reference (AnswerError names the one that does not), and the module compiles."""
    for entry in corpus.entries(kind):
        compile(entry.source(), entry.id, "exec")


def test_an_answer_stores_code_not_the_docstrings():
    """A regions answer holds none of the reference's docstrings, so a docstring edit touches no answer; only the
    whole modules (each saying why in its # WHOLE: line) carry a copy."""
    for entry in WRONG + RIGHT:
        text = entry.path.read_text(encoding="utf-8")
        if answer_regions.is_regions_file(text):
            module_doc = corpus.SOLUTIONS.joinpath(entry.module).read_text().split('"""')[1]
            assert module_doc not in text, f"{entry.id} carries the reference's module docstring: keep only its regions"
        else:
            assert corpus.WHOLE in text, f"{entry.id} is a whole module without a '{corpus.WHOLE}<why>' line"


def test_a_docstring_edit_reaches_every_answer_and_a_lost_region_names_the_answer(tmp_path):
    solutions = tmp_path / "solutions"
    shutil.copytree(corpus.SOLUTIONS, solutions)
    collate = solutions / "collate.py"
    collate.write_text(collate.read_text().replace("Right-pad a batch", "Right-pad one batch"))
    answers = [e for e in WRONG + RIGHT if e.exercise == "collate" and answer_regions.is_regions_file(e.path.read_text())]
    assert answers and all("Right-pad one batch" in e.source(solutions) for e in answers)
    collate.write_text(collate.read_text().replace("def pad_collate(", "def pad_batch("))
    with pytest.raises(answer_regions.AnswerError, match=rf"{answers[0].name}.py: the reference has no solution region 'pad_collate'"):
        answers[0].source(solutions)


def test_assemble_swaps_in_only_the_entry(tmp_path):
    entry = WRONG[0]
    folder = corpus.assemble(entry, tmp_path / "submission")
    assert sorted(p.name for p in folder.iterdir()) == sorted(f"{e}.py" for e in EXERCISES)
    for exercise in EXERCISES:
        want = entry.source() if exercise == entry.exercise else (corpus.SOLUTIONS / f"{exercise}.py").read_text()
        assert (folder / f"{exercise}.py").read_text() == want


# ---------------------------------------------------------------- slow: grading the corpus


# Two answers are graded on all five exercises (30-60 s more each): each probe loads only the graded
# exercise's file, so the other exercises cannot see the mistake; these two show it end to end.
ISOLATION = ["wrong/seeding/no_modulo_2_32", "wrong/bucketing/global_sort_no_shuffle"]


@pytest.fixture(scope="session")
def sandboxes():
    """{exercise: a started OneSandbox}, each made when first asked for and closed at the end of the run."""
    boxes = {}

    def get(exercise: str) -> OneSandbox:
        if exercise not in boxes:
            boxes[exercise] = OneSandbox(corpus.SOLUTIONS, exercise).__enter__()
        return boxes[exercise]

    yield get
    for box in boxes.values():
        box.__exit__(None, None, None)


def grade_entry(entry, tmp_path, sandboxes=None):
    """The answer's grading: of its exercise alone in the shared sandbox, or of all five in a fresh one (no ``sandboxes``)."""
    folder = corpus.assemble(entry, tmp_path / "submission")
    if sandboxes is None:
        return grade(folder, seed=SEED)
    box = sandboxes(entry.exercise)
    box.swap_in(folder / entry.module)
    return grade(folder, seed=SEED, only=[entry.exercise], gpu="off", sandbox=box.sandbox)


def not_passed(exercise_result):
    return [c for c in exercise_result.checks if c.status not in ("passed", "skipped")]


def describe(checks):
    return "\n".join(f"  {c.name}: {c.status}\n    " + c.message.replace("\n", "\n    ") for c in checks)


def judge_deductions(entry, result, record_property):
    """Record the checks the answer fails and the points it loses; assert they are its promises' and only theirs."""
    failed = not_passed(result)
    record_property("failed_checks", " ".join(c.name for c in failed))
    record_property("points_lost", f"{result.max_score - result.score:g}")
    assert result.score < result.max_score, (
        f"{entry.id} scored full marks although it is wrong: {entry.claim}\n"
        "Either a check misses this broken promise (strengthen it), or the docstring leaves it open (drop the entry).")
    lost = [c for c in failed if c.max_score > 0]
    assert lost, f"{entry.id} lost points but no check with points failed"
    assert all(c.message.strip() for c in lost), f"{entry.id}: a failed check gives the student no message:\n{describe(lost)}"
    allowed = set().union(*(PROMISE_CHECKS[p] for p in entry.breaks))
    others = [c for c in failed if c.name not in allowed]
    assert not others, (f"{entry.id} breaks {', '.join(entry.breaks)}, but also fails checks of other promises: one mistake, "
                        f"one deduction (loosen those checks, or name the promise it breaks too):\n{describe(others)}")
    names = {c.name for c in failed}
    unshown = [p for p in entry.breaks if not PROMISE_CHECKS[p] & names]
    assert not unshown, f"{entry.id} breaks {', '.join(unshown)}, says its # breaks: line, but fails none of its checks"


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("entry", WRONG, ids=[e.id for e in WRONG])
def test_wrong_answer_loses_points_with_a_message(entry, tmp_path, record_property, sandboxes):
    """One full grading (no --fail-fast) of the answer's exercise: it loses points there, for the promises it breaks
    and no others; for the ISOLATION answers the other four exercises, graded too, lose nothing. Its seeded checks
    give the same verdicts under the other seeds."""
    everywhere = entry.id in ISOLATION
    result = grade_entry(entry, tmp_path, None if everywhere else sandboxes)
    (mine,) = [e for e in result.exercises if e.name == entry.exercise]
    judge_deductions(entry, mine, record_property)
    box = sandboxes(entry.exercise)
    if everywhere:
        box.swap_in(corpus.assemble(entry, tmp_path / "again") / entry.module)
    differ = seed_differences(box, reference_run(corpus.SOLUTIONS, entry.exercise)["seeded"],
                              {c.name: (c.status, c.message) for c in mine.checks})
    assert not differ, (f"{entry.id}: verdicts that depend on the seed (seeds {SEEDS}); give the promise a boundary that "
                        "shows the mistake whatever the seed:\n  " + "\n  ".join(differ))
    if everywhere:
        assert [e.name for e in result.exercises] == list(EXERCISES)
        for exercise in result.exercises:
            assert exercise.name == entry.exercise or exercise.score == exercise.max_score, \
                f"{entry.id} (a mistake in {entry.exercise}) cost points in {exercise.name}:\n{describe(not_passed(exercise))}"


def test_the_isolation_answers_are_in_the_corpus():
    assert set(ISOLATION) <= {e.id for e in WRONG}


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("entry", RIGHT, ids=[e.id for e in RIGHT])
def test_right_answer_scores_full_marks(entry, tmp_path, sandboxes):
    (result,) = grade_entry(entry, tmp_path, sandboxes).exercises
    failed = not_passed(result)
    assert result.score == result.max_score and not failed, (
        f"{entry.id} is right ({entry.claim}) but scored {result.score}/{result.max_score}. "
        f"That is a bug in a check or probe:\n{describe(failed)}")
