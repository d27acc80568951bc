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
from grader.tests.seed_invariance import SEEDS, OneSandbox, reference_run
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


#: An answer from outside the corpus, made here from the reference: a window count one short, which makes other
#: checks meet an index the submission calls out of range wherever the seeded draws reach the last window.
LEN_LINE = "        return max(0, (self.n_tokens - self.block_size - 1) // self.stride + 1)\n"


@pytest.mark.slow
@pytest.mark.timeout(300)
def test_an_answer_from_outside_the_corpus_gets_the_same_verdicts_under_every_seed(tmp_path):
    """Every check's verdict, not only the seeded ones', for a TokenWindows whose __len__ is one short, under each seed."""
    source = (corpus.SOLUTIONS / "tokens.py").read_text()
    assert source.count(LEN_LINE) == 1, "solutions/tokens.py's __len__ changed: make LEN_LINE its return line again"
    short = tmp_path / "tokens.py"
    short.write_text(source.replace(LEN_LINE, LEN_LINE.replace(" + 1)", ")")))
    with OneSandbox(corpus.SOLUTIONS, "tokens") as box:
        box.swap_in(short)
        verdicts = {seed: box.verdicts(seed)[0] for seed in SEEDS}
    first = verdicts[SEEDS[0]]
    assert "failed" in first.values(), "a window count one short passed every check"
    differ = {check: {seed: v[check] for seed, v in verdicts.items()} for check in first
              if len({v[check] for v in verdicts.values()}) > 1}
    assert not differ, f"verdicts that depend on the seed: {differ}"
