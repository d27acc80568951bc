"""The contract table (every exercise's promises.toml) cannot drift from the docstrings, the checks or the public tests.

The rule (grader/tools/authoring/contract_table.py): every word of every student-facing
docstring in solutions/ lies inside a quote of an entry (a promise, or a
sentence explained as promising nothing); every quote is found exactly
once in its docstring; every promise's judge (the check its id names) and
public tests exist; every check is the judge of exactly one entry and every
public test shows one; grader/docs/contract.md shows the table as it is. The
last tests show that each part of the rule catches what it is for, on
made-up entries.
"""

from __future__ import annotations

import argparse
import dataclasses

import pytest

from grader import registry
from grader.commands import contract as contract_command
from grader.engine import promise_states
from grader.engine.checking import Context
from grader.shared.states import LATER_STATES
from grader.tools.authoring import contract_doc, public_promises
from grader.tools.authoring import contract_table as contract

ENTRIES = contract.load()
DOCS = {x: contract.docstrings(x) for x in registry.EXERCISES}
CHECKS = {x: contract.check_names(x) for x in registry.EXERCISES}
TESTS = {x: contract.public_tests(x) for x in registry.EXERCISES}


def test_entries_are_well_formed():
    assert not contract.entry_problems(ENTRIES), "\n".join(contract.entry_problems(ENTRIES))


def test_every_quote_is_found_once_in_its_docstring():
    found = contract.quote_problems(ENTRIES, DOCS)
    assert not found, "\n".join(found) + "\n(quote the docstring as it is now, or drop the entry)"


@pytest.mark.parametrize("exercise", registry.EXERCISES)
def test_every_docstring_sentence_is_quoted_by_an_entry(exercise):
    found = contract.coverage_problems(ENTRIES, {exercise: DOCS[exercise]})
    assert not found, "\n".join(found)


def test_every_named_check_and_public_test_exists():
    found = contract.reference_problems(ENTRIES, CHECKS)
    assert not found, "\n".join(found)


def test_every_check_judges_one_entry_and_every_public_test_shows_one():
    found = contract.orphan_problems(ENTRIES, CHECKS, TESTS)
    assert not found, "\n".join(found)


def test_every_exercise_has_its_docstrings_in_the_table():
    for exercise in registry.EXERCISES:
        assert DOCS[exercise], f"solutions/{exercise}.py has no student-facing docstring"
        assert {e.doc for e in ENTRIES if e.exercise == exercise and e.kind != "shows"} == set(DOCS[exercise])


def test_the_contract_page_shows_the_table_as_it_is():
    assert not contract_doc.stale(), "grader/docs/contract.md's contract table is stale: run python -m grader contract"
    assert not public_promises.stale(), "tests/promises.toml is stale: run python -m grader contract"
    assert contract_command.run(argparse.Namespace(check=True)) == 0


# ---------------------------------------------------------------- each part of the rule catches what it is for


DOC = contract.normalize("Return 2 * x. It raises\n    TypeError for a str. None.")


def promise(**fields):
    return contract.Entry(**{"kind": "promise", "id": "collate.a", "doc": "f", "quote": "Return 2 * x.", "points": 1.0,
                             "tests": ("test_a",), "boundaries": ("empty",), **fields})


def judged_by(check, **fields):
    """A made-up promise whose judge is the real check ``check`` of collate (its id names it)."""
    return promise(id=f"collate.{check.removeprefix('check_')}", **fields)


def test_a_sentence_no_entry_quotes_is_found_with_its_words():
    assert contract.uncovered(DOC, ["Return 2 * x.", "None."]) == ["'It raises TypeError for a str.' (not quoted: It raises TypeError for a str)"]
    assert contract.uncovered(DOC, ["Return 2 * x.", "It raises TypeError", "for a str.", "None."]) == []
    assert contract.uncovered(DOC, ["Return 2 * x. It raises TypeError for a", "None."]) == ["'It raises TypeError for a str.' (not quoted: str)"]


def test_a_stale_or_ambiguous_quote_is_found():
    docs = {"collate": {"f": DOC}}
    assert contract.quote_problems([promise()], docs) == []
    assert "no longer in" in contract.quote_problems([promise(quote="Return 3 * x.")], docs)[0]
    assert "occurs 2 times" in contract.quote_problems([promise(quote="x")], {"collate": {"f": "x and x"}})[0]
    assert "no student-facing docstring" in contract.quote_problems([promise(doc="g")], docs)[0]
    # a promise may quote several sentences its one judge proves together: each must be found
    assert contract.quote_problems([promise(quote=("Return 2 * x.", "None."))], docs) == []
    both = contract.quote_problems([promise(quote=("Return 2 * x.", "Nothing."))], docs)
    assert len(both) == 1 and "'Nothing.'" in both[0]


def test_a_promise_without_test_and_a_bad_id_are_found():
    assert contract.entry_problems([promise()]) == []
    assert "at least one public test" in contract.entry_problems([promise(tests=())])[0]
    assert "<exercise>.<name>" in contract.entry_problems([promise(id="nosuch.demo")])[0]
    assert "visibility must be one of" in contract.entry_problems([promise(visibility="secret")])[0]
    shows = contract.Entry(kind="shows", id="collate.pin", shows=" ")
    assert "says what its check shows" in contract.entry_problems([shows])[0]
    assert "used twice" in contract.entry_problems([promise(), promise()])[0]
    assert "says why" in contract.entry_problems([dataclasses.replace(promise(), kind="explained", why=" ")])[0]
    assert "lists its boundaries" in contract.entry_problems([promise(boundaries=())])[0]


def test_a_boundary_its_judge_does_not_run_is_found():
    ran = contract.check_boundaries("collate")
    check = next(c for c, names in ran.items() if names)
    name = sorted(ran[check])[0]
    assert contract.boundary_problems([judged_by(check, boundaries=(name,))]) == []
    problems = contract.boundary_problems([judged_by(check, boundaries=(name, "nosuch_boundary"))])
    assert len(problems) == 1 and f"'nosuch_boundary' is not run by its judge {check}" in problems[0]


def test_boundaries_are_read_through_helpers_and_module_dicts(tmp_path):
    checks = tmp_path / "check_demo.py"
    checks.write_text("CASES = {'a': 1, 'b': 2}\n\ndef helper(ctx):\n    return ctx.boundaries(c=3)\n\n"
                      "def check_one(ctx):\n    ctx.boundaries(**CASES)\n    helper(ctx)\n\ndef check_two(ctx):\n    pass\n")
    assert contract._check_boundaries(str(checks), 0) == {"check_one": ("a", "b", "c"), "check_two": ()}


def test_a_missing_judge_or_test_and_an_orphan_are_found():
    real = judged_by(CHECKS["collate"][0], tests=(TESTS["collate"][0],))
    assert contract.reference_problems([real], CHECKS) == []
    assert "its judge check_a is no check" in contract.reference_problems([promise(tests=real.tests)], CHECKS)[0]
    assert "no public test test_a" in contract.reference_problems([dataclasses.replace(real, tests=("test_a",))], CHECKS)[0]
    assert contract.test_exists("collate", "test_fences.py::test_fence1_default_collate_rules_and_pad_collate")
    orphans = contract.orphan_problems([real], {"collate": CHECKS["collate"][:2]}, {"collate": TESTS["collate"][:2]})
    assert len(orphans) == 2
    assert orphans[0].startswith(f"collate: the check {CHECKS['collate'][1]} is the judge of no entry: add a [[promise]]")
    assert orphans[1].startswith(f"collate: the public test {TESTS['collate'][1]} shows no promise")


def test_a_table_with_unknown_fields_or_values_is_refused(tmp_path):
    path = tmp_path / "promises.toml"
    head = '[[promise]]\nid = "collate.x"\ndoc = "f"\nquote = "q"\npoints = 1\ntests = []\nboundaries = []\n'
    path.write_text(head + 'check = "typo"\n')
    with pytest.raises(contract.ContractError, match="unknown fields \\['check'\\]"):
        contract.load_file(path, "collate")
    path.write_text(head + 'checks = ["check_x"]\n')
    with pytest.raises(contract.ContractError, match="drop checks"):
        contract.load_file(path, "collate")
    path.write_text(head.replace("points = 1", 'points = "three"'))
    with pytest.raises(contract.ContractError, match="points must be a number >= 0, got 'three'"):
        contract.load_file(path, "collate")
    path.write_text(head.replace('quote = "q"', "quote = [1]"))
    with pytest.raises(contract.ContractError, match="quote must be a string or a list of strings"):
        contract.load_file(path, "collate")
    path.write_text('[[promises]]\nid = "x"\n')
    with pytest.raises(contract.ContractError, match="unknown tables"):
        contract.load_file(path, "collate")
    path.write_text('[points]\nx = 1\n')
    with pytest.raises(contract.ContractError, match="points live in each \\[\\[promise\\]\\] entry"):
        contract.load_file(path, "collate")
    path.write_text('[[explained]]\nid = "tokens.x"\ndoc = "f"\nquote = "q"\nwhy = "w"\n')
    with pytest.raises(contract.ContractError, match="tokens.x is not of collate"):
        contract.load_file(path, "collate")


def test_the_contract_page_needs_its_markers():
    with pytest.raises(ValueError, match="needs the lines"):
        contract_doc.with_block("no markers here\n", "table\n")
    text = f"a\n{contract_doc.BEGIN}\nold\n{contract_doc.END}\nb\n"
    assert contract_doc.with_block(text, "new\n") == f"a\n{contract_doc.BEGIN}\nnew\n{contract_doc.END}\nb\n"


def test_a_states_field_is_checked_and_steers_the_checks_that_ask(tmp_path, monkeypatch):
    """A promise's states field: its names exist, and its judge asks ctx.states and meets them."""
    crossing = sorted(contract.checks_crossing_states("bucketing"))[0]
    fresh_only = promise(id=f"bucketing.{crossing.removeprefix('check_')}", states=())
    assert contract.entry_problems([fresh_only]) == [] and contract.boundary_problems([fresh_only]) == []
    assert "unknown states ['after_lunch']" in contract.entry_problems([dataclasses.replace(fresh_only, states=("after_lunch",))])[0]
    assert "leave it out" in contract.entry_problems([dataclasses.replace(fresh_only, states=("fresh",))])[0]
    assert "names a state twice" in contract.entry_problems([dataclasses.replace(fresh_only, states=("pickled",) * 2)])[0]
    not_crossing = next(c for c in CHECKS["collate"] if c not in contract.checks_crossing_states("collate"))
    useless = contract.boundary_problems([judged_by(not_crossing, boundaries=(), states=())])
    assert len(useless) == 1 and "would change nothing" in useless[0]
    # each judge meets its own promise's states, in LATER_STATES order; no field means all of them
    path = tmp_path / "promises.toml"
    path.write_text('[[promise]]\nid = "bucketing.a"\nstates = ["pickled", "after_a_pass"]\n\n'
                    '[[promise]]\nid = "bucketing.b"\nstates = []\n\n[[promise]]\nid = "bucketing.c"\n')
    got = promise_states._states_by_check(str(path), "bucketing", 0)
    assert got == {"check_a": ("after_a_pass", "pickled"), "check_b": (), "check_c": LATER_STATES}
    path.write_text('[[promise]]\nid = "bucketing.x"\nstates = "pickled"\n')
    with pytest.raises(promise_states.PromiseStatesError, match="bucketing.x: states must be a list"):
        promise_states._states_by_check(str(path), "bucketing", 1)
    # what a check asks is its promises' entry, recorded as run
    monkeypatch.setattr(promise_states, "states_by_check", lambda exercise: {crossing: ("pickled",)})
    ctx = Context(sandbox=None, seed=0)
    ctx.begin_check(f"grader/exercises/bucketing/check_bucketing.py::{crossing}")
    assert ctx.states("bucketing") == ("pickled",) and list(ctx.states_run[ctx.current]) == ["pickled"]
    ctx.begin_check("check_no_promise_names")
    assert ctx.states("bucketing") == LATER_STATES
