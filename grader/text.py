"""Make untrusted text safe to print: no control characters, no CI workflow commands.

Everything a student's code sends back (exception messages, output, values
shown in feedback) may reach a terminal, a CI log or a report.
:func:`clean_text` removes ANSI escape sequences and control characters
(keeping newlines and tabs) and defuses the line-start markers that GitHub
Actions (``::error::``, ``::add-mask::``, ``::stop-commands::``) and Azure
Pipelines (``##[error]``, ``##vso[``) read as commands.

:func:`first_paragraph` is the one-line summary of a docstring (a check's
promise, as the reports and the student README show it).
"""

from __future__ import annotations

import re

# CSI (ESC [ ... final), OSC (ESC ] ... BEL/ST) and two-character ESC sequences.
_ANSI = re.compile(r"\x1b\[[0-?]*[ -/]*[@-~]|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?|\x1b[@-Z\\-_]|\x9b[0-?]*[ -/]*[@-~]")
# C0 controls except \t and \n, DEL, C1 controls, lone surrogates, and the two non-characters XML forbids.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")
# A line whose first non-blank characters a CI runner would take as a command.
_COMMAND = re.compile(r"^([ \t]*)(::|##\[|##vso\[)", re.MULTILINE)


def clean_text(text: object) -> str:
    """``text`` as printable, inert text (newlines normalised to ``\\n``)."""
    s = "" if text is None else str(text)
    s = s.replace("\r\n", "\n").replace("\r", "\n")
    s = _CONTROL.sub("", _ANSI.sub("", s))
    return _COMMAND.sub(lambda m: f"{m.group(1)}{m.group(2)[0]} {m.group(2)[1:]}", s)


def first_paragraph(docstring: str | None) -> str:
    """The first paragraph of ``docstring`` on one line (its lines joined by spaces)."""
    paragraph = (docstring or "").strip().split("\n\n", 1)[0]
    return " ".join(line.strip() for line in paragraph.splitlines())
