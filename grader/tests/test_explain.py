"""``python -m grader explain``: every check's story is complete, and it is read from the files that hold each part."""

from __future__ import annotations

import pytest

from grader import cli
from grader.engine.rubric import load_rubric
from grader.tools.authoring import check_story, contract_table


@pytest.mark.parametrize("exercise,name", check_story.all_checks())
def test_every_check_has_a_whole_story(exercise, name):
    story = check_story.story(f"{exercise}.{name}")
    assert len(story.promises) == 1, f"{exercise}.{name}: not the judge of exactly one entry of its promises.toml"
    assert story.proves.startswith("Proves"), f"{exercise}.{name}: its docstring does not say what it proves"
    assert story.points == load_rubric()[exercise][name].points
    assert story.probes or story.runs_only, f"{exercise}.{name}: no probe found in its code"
    assert "LAB.md" in story.where_to_look


def test_the_story_quotes_the_promise_and_names_the_workers(capsys):
    assert cli.main(["explain", "tokens.same_batches_in_real_workers"]) == 0
    out = capsys.readouterr().out
    quotes = next(e.quotes for e in contract_table.load() if e.id == "tokens.same_batches_in_real_workers")
    assert all(contract_table.normalize(quote) in out for quote in quotes)
    assert "tokens:in_workers" in out and "fork, forkserver, spawn" in out
    assert "tests/test_tokens.py::" in out


def test_an_in_process_check_says_so_and_a_name_without_exercise_resolves(capsys):
    assert cli.main(["explain", "check_returns_exactly_the_three_keys"]) == 0
    out = capsys.readouterr().out
    assert out.startswith("collate.returns_exactly_the_three_keys:") and "none (in process)" in out


def test_an_unknown_check_is_one_line_with_close_names(capsys):
    assert cli.main(["explain", "three_keys"]) == 2
    err = capsys.readouterr().err.strip()
    assert err.startswith("python -m grader explain: error: no check named 'three_keys'")
    assert "collate.returns_exactly_the_three_keys" in err and "\n" not in err
