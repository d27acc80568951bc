"""The handout (LAB.md): every pointer to it, anywhere, names a section it has.

Stub messages, the grader's feedback ("Where to look"), the student and
instructor READMEs, the lab runner and lab.toml send students to LAB.md
sections, either as ``LAB.md, "Section"`` (quoted names, several joined by
"and") or as links ``LAB.md#anchor``. Each must exist. The handout also
keeps one figures block per experiment, written by the instructor's
``python -m grader handout`` (the students' lab runner cannot rewrite it),
and states the padding bound that the lab and the grader read from lab.toml.
"""

from __future__ import annotations

import ast
import re

import pytest

from grader import registry
from grader.engine.checking import where_to_look
from grader.paths import REPO
from grader.tools.authoring.handout import HandoutError, with_figures

HANDOUT = REPO / "LAB.md"
POINTER = re.compile(r'LAB\.md, ((?:"[^"]+"(?:,? and |, )?)+)')
LINK = re.compile(r"LAB\.md#([\w-]+)")
SCANNED = [REPO / "README.md", REPO / "lab.toml", *sorted((REPO / "exercises").glob("*.py")),
           *sorted((REPO / "solutions").glob("*.py")), *sorted((REPO / "tests").glob("*.py")),
           *sorted((REPO / "grader" / "tools" / "delivery" / "templates").rglob("*.*"))]


def headings() -> set[str]:
    return {line[3:].strip() for line in HANDOUT.read_text(encoding="utf-8").splitlines() if line.startswith("## ")}


def anchor(heading: str) -> str:
    """GitHub's anchor for a heading: lower case, punctuation dropped, spaces to hyphens."""
    return re.sub(r"[^\w\- ]", "", heading.lower()).replace(" ", "-")


def named_sections(text: str) -> list[str]:
    return [name for match in POINTER.finditer(text) for name in re.findall(r'"([^"]+)"', match.group(1))]


def test_every_exercise_and_experiment_has_its_section():
    sections = headings()
    for entry in registry.REGISTRY:
        assert entry.handout in sections, f"LAB.md has no section {entry.handout!r} for {entry.name}"
        if entry.experiment:
            assert entry.experiment in sections, f"LAB.md has no section {entry.experiment!r}"


@pytest.mark.parametrize("path", SCANNED, ids=lambda p: str(p.relative_to(REPO)))
def test_every_pointer_names_a_section_of_the_handout(path):
    text = path.read_text(encoding="utf-8")
    sections, anchors = headings(), {anchor(h) for h in headings()}
    for name in named_sections(text):
        assert name in sections, f"{path.relative_to(REPO)} points to LAB.md, {name!r}, which LAB.md lacks"
    for target in LINK.findall(text):
        assert target in anchors, f"{path.relative_to(REPO)} links to LAB.md#{target}, which LAB.md lacks"


def test_the_graders_feedback_points_to_sections_of_the_handout():
    for entry in registry.REGISTRY:
        named = named_sections(where_to_look(entry.name))
        assert named and set(named) <= headings(), (entry.name, named)


def test_the_stubs_point_to_the_handout():
    for entry in registry.REGISTRY:
        stub = (REPO / "exercises" / entry.module).read_text(encoding="utf-8")
        assert f'LAB.md, "{entry.handout}"' in stub, entry.name


def test_the_handout_has_a_figures_block_per_experiment():
    text = HANDOUT.read_text(encoding="utf-8")
    for letter in "abcd":
        block = re.search(rf"<!-- lab:{letter} -->\n```\n(.*?)\n```\n<!-- /lab:{letter} -->", text, re.S)
        assert block, f"LAB.md has no figures block for experiment ({letter})"
        assert block.group(1).startswith(f"({letter}) ")


def test_one_padding_bound_everywhere():
    """lab.toml's [bounds] is the one place of the bucketing padding bound: the lab runner and the grader's check read
    it, BucketBatchSampler's module docstring and the handout's figures of experiment (c) state it."""
    from solutions.lab import lab_bound

    bound = registry.bound("bucketed_padded_fraction")
    assert lab_bound("bucketed_padded_fraction") == bound and 0 < bound < 0.35
    docstring = ast.get_docstring(ast.parse((REPO / "solutions" / "bucketing.py").read_text(encoding="utf-8")))
    measured = " ".join(docstring.split()).partition("the lab measures")[2]  # however the paragraph is wrapped
    assert re.findall(r"(\d+(?:\.\d+)?) %", measured)[-1:] == [f"{100 * bound:g}"], \
        "bucketing.py's docstring states another padding bound than lab.toml's"
    block = re.search(r"<!-- lab:c -->(.*?)<!-- /lab:c -->", HANDOUT.read_text(encoding="utf-8"), re.S).group(1)
    assert f"the bound for pools of 50 batches: {100 * bound:g} %" in block, "LAB.md's figures are stale: python -m grader handout"
    check = (REPO / "grader" / "exercises" / "bucketing" / "check_bucketing.py").read_text(encoding="utf-8")
    assert 'registry.bound("bucketed_padded_fraction")' in check and not re.search(r"[<>]=? *0\.0\d", check)


def test_the_students_lab_cannot_rewrite_the_handout():
    from exercises import lab

    with pytest.raises(SystemExit):
        lab.parse_args(["--handout", "LAB.md"])
    assert not hasattr(lab, "write_handout")


def test_the_handout_command_replaces_only_the_blocks():
    text = "before\n<!-- lab:a -->\n```\nold\n```\n<!-- /lab:a -->\nafter\n"
    assert with_figures(text, {"a": "(a) new"}) == "before\n<!-- lab:a -->\n```\n(a) new\n```\n<!-- /lab:a -->\nafter\n"
    with pytest.raises(HandoutError, match="lab:b"):
        with_figures(text, {"b": "(b) new"})
