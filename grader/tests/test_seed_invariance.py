"""The same code gets the same score under any seed, and every grading runs the boundaries the contract table lists.

Per exercise, from the reference's run under the first seed
(grader/tests/seed_invariance.py, ``reference_run``):

* the reference passes every check, and each check runs exactly the
  boundaries its code names (``ctx.boundaries``): the static reading behind
  ``python -m grader check`` (grader/tools/authoring/contract_table.py, boundary_problems)
  is what runs;
* the same run says which checks draw from the seed (call ``ctx.rng``).
  Every wrong answer of the corpus gets the same verdict from each of them
  under the three seeds of ``seed_invariance.SEEDS``: its grading in
  grader/tests/test_corpus_answers.py is the first seed's run, and that test
  runs the seeded checks under the other two. The other checks' inputs are
  the same for every seed. Equal verdicts per check give equal scores.

A wrong answer whose verdict changes with the seed breaks a promise that
only some draws show: add the input that shows it to that promise's
boundaries (a deterministic witness), never a luckier seed.
"""

from __future__ import annotations

import pytest

from grader.registry import EXERCISES
from grader.tests.seed_invariance import SEEDS, reference_run
from grader.tools.authoring import contract_table as contract
from grader.tools.authoring import corpus


@pytest.mark.slow
@pytest.mark.timeout(300)
@pytest.mark.parametrize("exercise", EXERCISES)
def test_the_reference_passes_and_runs_the_boundaries_its_checks_name(exercise):
    run = reference_run(corpus.SOLUTIONS, exercise)
    assert all(v == "passed" for v in run["verdicts"].values()), f"the reference fails under seed {SEEDS[0]}: {run['verdicts']}"
    named = contract.check_boundaries(exercise)
    for check in run["verdicts"]:
        ran = set(run["boundaries_run"].get(check, []))
        assert ran == named.get(check, set()), (f"{check} names the boundaries {sorted(named.get(check, set()))} in its "
                                                f"code but ran {sorted(ran)} on the reference")
    assert set(run["seeded"]) <= set(run["verdicts"])
