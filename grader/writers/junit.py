"""JUnit XML, for CI test tabs (GitHub, GitLab, Jenkins)."""

from __future__ import annotations

import xml.etree.ElementTree as ET
from collections import Counter
from typing import Optional, Sequence, Tuple

from grader.engine.results import GradeResult
from grader.writers.formatting import MESSAGE_LIMIT, clean, cut, pts


def _xml_text(text: object, limit: Optional[int] = MESSAGE_LIMIT) -> str:
    """Text legal in XML 1.0: ANSI sequences and every character outside the
    XML ``Char`` production removed (ElementTree escapes the rest)."""
    s = clean(text)
    return cut(s, limit) if limit else s


def _first_line(text: str, limit: int = 200) -> str:
    line = text.strip().split("\n", 1)[0] if text.strip() else ""
    return line if len(line) <= limit else line[: limit - 1] + "…"


def _add_properties(parent: ET.Element, props: Sequence[Tuple[str, str]]) -> None:
    el = ET.SubElement(parent, "properties")
    for name, value in props:
        ET.SubElement(el, "property", name=name, value=_xml_text(value, None))


def to_junit(result: GradeResult) -> str:
    """JUnit XML (UTF-8 text with an XML declaration).

    ``<testsuites>`` holds one ``<testsuite name=EXERCISE>`` per exercise with
    ``tests``/``failures``/``errors``/``skipped``/``time`` attributes that
    match its children and exercise-level ``score``/``max_score`` properties;
    each check is a ``<testcase classname="grader.EXERCISE" name=CHECK
    time=...>`` with its own ``score``/``max_score`` properties and one of
    ``<failure>`` (failed), ``<error>`` (error, timeout; ``type`` says which)
    or ``<skipped>`` (skipped) carrying the message; the code's output goes to
    ``<system-out>``. Built with ElementTree, so escaping is correct, after
    removing characters XML 1.0 forbids (control characters in student
    output would otherwise make the file unreadable).
    """
    root = ET.Element("testsuites", name="grader")
    totals = Counter()
    for ex in result.exercises:
        counts = Counter(c.status for c in ex.checks)
        suite = ET.SubElement(root, "testsuite", {
            "name": _xml_text(ex.name, None),
            "tests": str(len(ex.checks)),
            "failures": str(counts["failed"]),
            "errors": str(counts["error"] + counts["timeout"]),
            "skipped": str(counts["skipped"]),
            "time": f"{ex.duration_s:.3f}",
        })
        if result.started_at:
            suite.set("timestamp", _xml_text(result.started_at, None))
        _add_properties(suite, [("score", pts(ex.score)), ("max_score", pts(ex.max_score)),
                                *([] if result.seed_secret else [("seed", str(result.seed))])] + ([("note", cut(ex.note))] if ex.note else []))
        for c in ex.checks:
            _add_case(suite, ex.name, c)
        totals.update(tests=len(ex.checks), failures=counts["failed"],
                      errors=counts["error"] + counts["timeout"], skipped=counts["skipped"])
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(totals[key]))
    root.set("time", f"{result.duration_s:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


#: check status -> (element, its type attribute); a passed check has no element.
_STATUS_ELEMENTS = {"failed": ("failure", "failed"), "error": ("error", "error"), "timeout": ("error", "timeout"),
                    "skipped": ("skipped", "")}


def _add_case(suite: ET.Element, exercise: str, c) -> None:
    """One ``<testcase>`` for check ``c``: its properties, the element of its status, its output."""
    case = ET.SubElement(suite, "testcase", {
        "classname": f"grader.{_xml_text(exercise, None)}",
        "name": _xml_text(c.name, None),
        "time": f"{c.duration_s:.3f}",
    })
    _add_properties(case, [("score", pts(c.score)), ("max_score", pts(c.max_score))]
                    + ([("description", c.description)] if c.description else []))
    message = _xml_text(c.message)
    if c.status in _STATUS_ELEMENTS:
        tag, kind = _STATUS_ELEMENTS[c.status]
        el = ET.SubElement(case, tag, message=_first_line(message))
        if kind:
            el.set("type", kind)
        el.text = message
    if c.output:
        ET.SubElement(case, "system-out").text = _xml_text(c.output)
