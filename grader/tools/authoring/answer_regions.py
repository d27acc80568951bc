"""A corpus answer as code, not a copy: the solution regions it changes, assembled into a whole file when graded.

The reference ``solutions/<exercise>.py`` marks each part a student writes
with ``### BEGIN SOLUTION`` and ``### END SOLUTION``; each such region is
named by the def or class around it (``pad_collate``,
``ShardedFiles.__iter__``, ``TokenWindows`` for a region of helper methods
in a class body). A corpus answer stores, after its header lines, only:

* the regions it changes, each between ``### BEGIN SOLUTION <name>`` and
  ``### END SOLUTION``, indented as in the reference (a region it leaves out
  keeps the reference's code);
* optionally, before its first region, module-level code of its own (extra
  imports, helper functions), which is placed before the reference's first
  top-level ``def``, ``class`` or decorator;
* optionally, after a line :data:`AT_THE_END`, module-level code placed at
  the end of the module (a mistake that rebinds a name the reference
  defines, such as ``pad_collate = lambda ...``). An answer may hold only
  this part.

:func:`assemble` makes the file that is graded: the reference, docstrings,
signatures and everything else outside the markers included, with the
answer's regions swapped in. So a docstring or a default changed in
``solutions/`` reaches every answer, and an answer that no longer fits (a
region name the reference has lost) fails with :class:`AnswerError`, which
names the answer and what to do.
"""

from __future__ import annotations

import re
from dataclasses import dataclass

from grader.tools.authoring.stubs import BEGIN, END, enclosing_scopes

_TOP_LEVEL_CODE = re.compile(r"^(def |class |async def |@)")
#: The line after which an answer's code goes at the end of the module.
AT_THE_END = "### AT THE END OF THE MODULE"


class AnswerError(ValueError):
    """An answer's regions do not fit the reference; the message names the answer and the fix."""


@dataclass(frozen=True)
class Part:
    """A stretch of the reference: outside the markers (``name`` empty) or one solution region (its name)."""

    name: str
    text: str


def reference_parts(source: str, where: str = "the reference") -> list[Part]:
    """``source`` cut into outside stretches (marker lines included) and named regions, in order.

    AnswerError for unbalanced markers, a region outside every def and class,
    or two regions of one name.
    """
    lines = source.splitlines(keepends=True)
    parts: list[Part] = []
    outside: list[str] = []
    region: list[str] | None = None
    name = ""
    for index, line in enumerate(lines):
        marker = line.strip()
        if marker == BEGIN and region is None:
            outside.append(line)
            parts.append(Part("", "".join(outside)))
            scopes = enclosing_scopes(lines, index)
            if not scopes:
                raise AnswerError(f"{where} line {index + 1}: a solution region must sit inside a def or class")
            name, outside, region = ".".join(n for _, n in scopes), [], []
        elif marker == END and region is not None:
            if name in {p.name for p in parts}:
                raise AnswerError(f"{where}: two solution regions are both inside {name}; give each its own def")
            parts.append(Part(name, "".join(region)))
            outside, region = [line], None
        elif marker in (BEGIN, END):
            raise AnswerError(f"{where} line {index + 1}: {marker} out of place (regions neither nest nor end twice)")
        else:
            (outside if region is None else region).append(line)
    if region is not None:
        raise AnswerError(f"{where}: {BEGIN} without {END}")
    parts.append(Part("", "".join(outside)))
    return parts


def region_names(source: str) -> list[str]:
    """The names of the reference's solution regions, in order."""
    return [p.name for p in reference_parts(source) if p.name]


@dataclass(frozen=True)
class Answer:
    """What an answer file holds: its header comment lines, its module-level code and its regions by name."""

    header: str
    prelude: str
    regions: dict[str, str]
    ending: str = ""


def is_regions_file(text: str) -> bool:
    """Whether ``text`` is an answer written as regions (it has a region marker or :data:`AT_THE_END`) rather than a
    whole module."""
    return any(line.strip().startswith(BEGIN) or line.strip() == AT_THE_END for line in text.splitlines())


def parse_answer(text: str, where: str) -> Answer:
    """The parts of an answer written as regions; AnswerError naming ``where`` for a malformed one."""
    lines = text.splitlines(keepends=True)
    cut = 0
    while cut < len(lines) and lines[cut].startswith("# "):
        cut += 1
    header, prelude, regions = "".join(lines[:cut]), [], {}
    name, body = None, []
    for number, line in enumerate(lines[cut:], start=cut + 1):
        marker = line.strip()
        if marker == AT_THE_END:
            if name is not None:
                raise AnswerError(f"{where} line {number}: {AT_THE_END} inside the region {name!r}")
            ending = "".join(lines[number:])
            if any(m.strip().startswith(BEGIN) for m in lines[number:]):
                raise AnswerError(f"{where} line {number}: regions go before {AT_THE_END}, not after")
            return Answer(header, "".join(prelude).strip("\n"), regions, ending.strip("\n"))
        if marker.startswith(BEGIN):
            if name is not None:
                raise AnswerError(f"{where} line {number}: a region starts before {name!r} ends with {END}")
            name = marker[len(BEGIN):].strip()
            if not name:
                raise AnswerError(f"{where} line {number}: say which region this is: '{BEGIN} <name>' "
                                  "(the def or class it sits in, e.g. pad_collate or ShardedFiles.__iter__)")
            if name in regions:
                raise AnswerError(f"{where} line {number}: the region {name!r} is given twice")
            body = []
        elif marker == END:
            if name is None:
                raise AnswerError(f"{where} line {number}: {END} without '{BEGIN} <name>'")
            regions[name], name = "".join(body), None
        elif name is not None:
            body.append(line)
        elif regions and marker:
            raise AnswerError(f"{where} line {number}: code between regions; module-level code goes before the first region")
        elif not regions:
            prelude.append(line)
    if name is not None:
        raise AnswerError(f"{where}: the region {name!r} has no {END}")
    return Answer(header, "".join(prelude).strip("\n"), regions)


def assemble(reference: str, answer_text: str, where: str) -> str:
    """The whole module an answer stands for: ``reference`` with the answer's regions and module-level code in it.

    AnswerError, naming ``where``, when the answer gives a region the
    reference does not have (the reference lost or renamed it: move the code
    to the region that holds it now, or drop the answer).
    """
    answer = parse_answer(answer_text, where)
    parts = reference_parts(reference)
    known = [p.name for p in parts if p.name]
    unknown = sorted(set(answer.regions) - set(known))
    if unknown:
        raise AnswerError(f"{where}: the reference has no solution region {', '.join(map(repr, unknown))} "
                          f"(it has {', '.join(known)}): move the code to the region that holds it now, or drop the answer")
    text = "".join(answer.regions.get(p.name, p.text) if p.name else p.text for p in parts)
    if answer.ending:
        text = text.rstrip("\n") + "\n\n\n" + answer.ending + "\n"
    if not answer.prelude:
        return text
    lines = text.splitlines(keepends=True)
    first = next((i for i, line in enumerate(lines) if _TOP_LEVEL_CODE.match(line)), len(lines))
    return "".join(lines[:first]) + answer.prelude + "\n\n\n" + "".join(lines[first:])
