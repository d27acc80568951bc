"""The same code gets the same score under any seed, and every grading runs the boundaries the contract table lists.

Per exercise, in one sandbox (grader/tests/seed_invariance.py):

* the reference passes every check, and each check runs exactly the
  boundaries its code names (``ctx.boundaries``): the static reading behind
  ``python -m grader check`` (grader/tools/authoring/contract_table.py, boundary_problems)
  is what runs;
* every wrong answer of the corpus gets the same verdict from every check
  under three seeds. Only the checks that draw from the seed (call
  ``ctx.rng`` on the reference) are run again: the others' inputs are the
  same for every seed. Equal verdicts per check give equal scores.

A wrong answer whose verdict changes with the seed breaks a promise that
only some draws show: add the input that shows it to that promise's
boundaries (a deterministic witness), never a luckier seed.
"""

from __future__ import annotations

import pytest

from grader.registry import EXERCISES
from grader.tests.seed_invariance import OneSandbox
from grader.tools.authoring import contract_table as contract
from grader.tools.authoring import corpus

SEEDS = (4, 1_000_003, 2**31 - 1)
"""Three seeds; the first is the corpus tests' (test_corpus_answers.SEED)."""


@pytest.mark.slow
@pytest.mark.timeout(600)
@pytest.mark.parametrize("exercise", EXERCISES)
def test_boundaries_run_and_wrong_answers_score_alike_under_three_seeds(exercise):
    with OneSandbox(corpus.SOLUTIONS, exercise) as box:
        reference, ctx = box.verdicts(SEEDS[0])
        assert all(v == "passed" for v in reference.values()), f"the reference fails: {reference}"
        named = contract.check_boundaries(exercise)
        for check in reference:
            ran = set(ctx.boundaries_run.get(check, {}))
            assert ran == named.get(check, set()), (f"{check} names the boundaries {sorted(named.get(check, set()))} in its "
                                                    f"code but ran {sorted(ran)} on the reference")
        seeded = ctx.seeded
        differ = []
        for entry in [e for e in corpus.entries("wrong") if e.exercise == exercise]:
            box.swap_in(entry.path)
            shared = {}
            runs = [box.verdicts(seed, seeded, shared)[0] for seed in SEEDS]
            changed = sorted(c for c in seeded if len({run[c] for run in runs}) > 1)
            if changed:
                differ.append(f"{entry.id}: " + "; ".join(f"{c}: {[run[c] for run in runs]}" for c in changed))
        assert not differ, (f"verdicts that depend on the seed (seeds {SEEDS}); give the promise a boundary that shows the "
                            "mistake whatever the seed:\n  " + "\n  ".join(differ))
