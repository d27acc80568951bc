"""Make untrusted text safe to print: no control characters, no CI workflow commands.

Everything a student's code sends back (exception messages, output, values
shown in feedback) may reach a terminal, a CI log or a report.
:func:`clean_text` removes ANSI escape sequences and control characters
(keeping newlines and tabs), turns the Unicode line separators into newlines,
and defuses what a CI runner reads as a command: ``::`` at the start of a line
after any Unicode whitespace or invisible format character (GitHub Actions
trims the line before it looks: ``::error::``, ``::add-mask::``,
``::stop-commands::``), and ``##[`` or ``##vso[`` anywhere in a line (Azure
Pipelines and the Actions runner find them mid-line). It is the one filter
for every text that reaches a console, a log or a summary (grader/docs/DESIGN.md,
principle 5): the student's, and the grader's own rows and errors too.

:func:`first_paragraph` is the one-line summary of a docstring (a check's
promise, as the reports and the student README show it).
"""

from __future__ import annotations

import re

# CSI (ESC [ ... final), OSC (ESC ] ... BEL/ST) and two-character ESC sequences.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]")
# C0 controls except \t and \n, DEL, C1 controls, lone surrogates, and the two non-characters XML forbids.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
# Line and paragraph separators a viewer may break a line at.
_SEPARATORS = re.compile("[\u2028\u2029]")
# A line whose first visible characters are "::", after any whitespace (\s is Unicode's) or invisible format
# character (zero-width spaces and joiners, the word joiner, the byte-order mark, bidirectional marks).
_INVISIBLE = "\\s\u00ad\u061c\u180e\u200b-\u200f\u202a-\u202e\u2060-\u2064\u2066-\u206f\ufeff"
_LINE_COMMAND = re.compile(f"^([{_INVISIBLE}]*?)::", re.MULTILINE)
# Azure's and the runner's markers, wherever they stand in a line.
_MARKER = re.compile(r"##(?=\[|vso\[)", re.IGNORECASE)


def clean_text(text: object) -> str:
    """``text`` as printable, inert text (newlines normalised to ``\\n``)."""
    s = "" if text is None else str(text)
    s = s.replace("\r\n", "\n").replace("\r", "\n")
    s = _SEPARATORS.sub("\n", _CONTROL.sub("", _ANSI.sub("", s)))
    s = _MARKER.sub("# #", s)
    return _LINE_COMMAND.sub(lambda m: f"{m.group(1)}: :", s)


def first_paragraph(docstring: str | None) -> str:
    """The first paragraph of ``docstring`` on one line (its lines joined by spaces)."""
    paragraph = (docstring or "").strip().split("\n\n", 1)[0]
    return " ".join(line.strip() for line in paragraph.splitlines())
