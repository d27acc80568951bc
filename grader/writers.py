"""Render one :class:`~grader.results.GradeResult` for each consumer.

One function per consumer; each returns a ``str`` and has no side effects.
:func:`write_all` writes whichever outputs it is given paths for.

==========================  =====================================================
function                    consumer
==========================  =====================================================
:func:`to_console`          a person reading a terminal / the CI log
:func:`to_json`             machines; the lossless form (``GradeResult.to_dict``)
:func:`to_markdown`         GitHub's ``$GITHUB_STEP_SUMMARY`` (GFM)
:func:`to_classroom`        ``classroom-resources/autograding-grading-reporter``
:func:`to_gradescope`       Gradescope's ``/autograder/results/results.json``
:func:`to_junit`            JUnit XML readers (CI test tabs, GitLab, Jenkins)
:func:`gradebook_csv`       the instructor's spreadsheet (one row per student)
:func:`class_summary_markdown`  the instructor's class overview
==========================  =====================================================

Text that may come from a student (messages, output, names, file names in
integrity flags) is untrusted. :func:`to_json` keeps it verbatim (it is the
data); every other writer is a presentation and sanitises it: ANSI escape
sequences and control characters (except newline and tab) are removed, long
messages are cut at :data:`MESSAGE_LIMIT` characters, and each format's own
escaping is applied (Markdown/HTML, XML, CSV formula injection).

Numbers are displayed rounded to two decimals ("12.5", "20", "3.33"); the
machine formats (JSON, Classroom, Gradescope) carry the unrounded floats so
that totals add up exactly as the consumer adds them.
"""

from __future__ import annotations

import base64
import csv
import html
import io
import json
import math
import os
import re
import statistics
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from typing import Iterable, Optional, Sequence, Tuple, Union

from .report_files import append_text, write_text
from .results import EXERCISES, CheckResult, ExerciseResult, GradeResult

__all__ = [
    "MESSAGE_LIMIT",
    "GRADEBOOK_COLUMNS",
    "to_console",
    "to_json",
    "to_markdown",
    "classroom_payload",
    "classroom_env_var",
    "to_classroom",
    "gradescope_payload",
    "to_gradescope",
    "to_junit",
    "gradebook_csv",
    "class_summary_markdown",
    "write_all",
]

#: Messages longer than this (in characters) are cut in every human-facing writer.
MESSAGE_LIMIT = 1500

#: A gradebook row: (student name, result or None when the grader failed, error message).
GradebookRow = Tuple[str, Optional[GradeResult], str]

PathLike = Union[str, "os.PathLike[str]"]

# --------------------------------------------------------------------------
# Shared text helpers
# --------------------------------------------------------------------------

# CSI (ESC [ ... final), OSC (ESC ] ... BEL/ST) and two-character ESC sequences.
_ANSI_RE = re.compile(
    r"\x1b\[[0-?]*[ -/]*[@-~]"
    r"|\x1b\][^\x07\x1b]*(?:\x07|\x1b\\)?"
    r"|\x1b[@-Z\\-_]"
    r"|\x9b[0-?]*[ -/]*[@-~]"
)
# C0 controls except \t and \n, DEL, C1 controls, lone surrogates, and the two
# non-characters XML 1.0 forbids. \r is removed too: "\r\n" is normalised first.
_CONTROL_RE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff\ufffe\uffff]")


def _clean(text: object) -> str:
    """Printable text: ANSI sequences and control characters removed, newlines
    normalised to ``\\n``. Keeps ``\\n`` and ``\\t``."""
    s = "" if text is None else str(text)
    s = s.replace("\r\n", "\n").replace("\r", "\n")
    s = _ANSI_RE.sub("", s)
    return _CONTROL_RE.sub("", s)


def _cut(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` cut to at most ``limit`` characters plus a note saying how much was cut."""
    if len(text) <= limit:
        return text
    return text[:limit].rstrip() + f"\n… [cut: {len(text) - limit} more characters]"


def _one_line(text: str) -> str:
    """Collapse whitespace (including newlines) to single spaces."""
    return " ".join(text.split())


def _pts(x: float) -> str:
    """A score for display: rounded to 2 decimals, no trailing zeros ("12.5", "20")."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return str(x)
    s = f"{round(float(x), 2):.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def _secs(x: float) -> str:
    return f"{float(x):.2f}"


def _pct(score: float, max_score: float) -> float:
    return 100.0 * score / max_score if max_score else 0.0


def _replay_hint(seed: int) -> str:
    return f"replay with --seed {seed}"


def _isolation_text(result: GradeResult) -> str:
    """"jail (how)" or "WEAK (why): ..." for the report headers."""
    level, reason = result.isolation["level"], _one_line(_clean(result.isolation["reason"]))
    if level == "jail":
        return f"jail ({reason})"
    return f"WEAK, not a grade of record ({reason})"


# --------------------------------------------------------------------------
# Console
# --------------------------------------------------------------------------

_SYMBOLS_UNICODE = {"passed": "✓", "failed": "✗", "error": "!", "timeout": "⧖", "skipped": "…"}
_SYMBOLS_ASCII = {"passed": "+", "failed": "x", "error": "!", "timeout": "T", "skipped": "-"}
_COLORS = {"passed": "32", "failed": "31", "error": "31", "timeout": "33", "skipped": "90"}


def _stdout_supports_unicode() -> bool:
    encoding = getattr(sys.stdout, "encoding", None) or "ascii"
    try:
        "".join(_SYMBOLS_UNICODE.values()).encode(encoding)
    except (UnicodeEncodeError, LookupError):
        return False
    return True


def to_console(result: GradeResult, color: bool = False, unicode: Optional[bool] = None) -> str:
    """A human-readable report, ending with a newline.

    Layout: a header (score/max, seed with the replay hint, duration, and
    submission/GPU/grader version when set); per exercise a line with its
    score, its note if any, then one line per check (status symbol, name,
    points, and the status word when not passed) with the message of every
    non-passed check indented below it (all its lines, cut at
    :data:`MESSAGE_LIMIT`). Integrity flags, if any, come last under an
    "instructor" heading.

    ``color`` adds ANSI colours; ``unicode`` picks ✓/✗ symbols over ASCII
    (``None``: whatever ``sys.stdout`` can encode). Student text is sanitised.
    """
    use_unicode = _stdout_supports_unicode() if unicode is None else unicode
    symbols = _SYMBOLS_UNICODE if use_unicode else _SYMBOLS_ASCII
    rule = ("─" if use_unicode else "-") * 60

    def paint(code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if color else text

    lines: list[str] = []
    lines.append(rule)
    lines.append(paint("1", f"Score: {_pts(result.score)} / {_pts(result.max_score)}"
                             f" ({_pts(_pct(result.score, result.max_score))}%)"))
    lines.append(f"Seed: {result.seed} ({_replay_hint(result.seed)})")
    lines.append(f"Duration: {_secs(result.duration_s)} s")
    for label, value in (("Submission", result.submission), ("Started", result.started_at),
                         ("GPU", result.gpu), ("Grader", result.grader_version)):
        if value:
            lines.append(f"{label}: {_one_line(_clean(value))}")
    lines.append(f"Isolation: {_isolation_text(result)}")
    lines.append(rule)

    width = max((len(c.name) for c in result.checks()), default=10)
    for ex in result.exercises:
        lines.append("")
        lines.append(paint("1", f"{ex.name}: {_pts(ex.score)} / {_pts(ex.max_score)}"))
        if ex.note:
            lines.append(f"  note: {_one_line(_clean(ex.note))}")
        for c in ex.checks:
            sym = paint(_COLORS[c.status], symbols[c.status])
            pts = f"{_pts(c.score)}/{_pts(c.max_score)}"
            tail = "" if c.passed else f"  ({c.status})"
            lines.append(f"  {sym} {_one_line(_clean(c.name)).ljust(width)}  {pts}{tail}")
            if not c.passed and c.message:
                for msg_line in _cut(_clean(c.message)).split("\n"):
                    lines.append(f"      {msg_line}".rstrip())

    if result.integrity_flags:
        lines.append("")
        lines.append(rule)
        lines.append(paint("33;1", "INTEGRITY FLAGS (for the instructor):"))
        for flag in result.integrity_flags:
            lines.append(f"  - {_one_line(_cut(_clean(flag)))}")
    lines.append(rule)
    return "\n".join(lines) + "\n"


# --------------------------------------------------------------------------
# JSON
# --------------------------------------------------------------------------


def to_json(result: GradeResult) -> str:
    """``result.to_dict()`` as JSON (indent 2, key order kept, UTF-8 text kept).

    Guaranteed shape (extra keys may appear)::

        {"score": float, "max_score": float, "seed": int, "duration_s": float,
         "exercises": [{"name": str, "score": float, "max_score": float,
                        "checks": [{"name": str, "status": <one of STATUSES>,
                                    "score": float, "max_score": float,
                                    "message": str}]}],
         "integrity": {"flags": [str, ...]}}

    Text is verbatim (control characters are JSON-escaped). This is the
    lossless form: ``GradeResult.from_dict(json.loads(to_json(r))) == r``.
    """
    return json.dumps(result.to_dict(), indent=2, sort_keys=False, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------
# Markdown (GitHub step summary)
# --------------------------------------------------------------------------

_MD_STATUS = {"passed": "✅", "failed": "❌", "error": "💥", "timeout": "⏱️", "skipped": "⏭️"}
# Characters that start inline Markdown constructs (emphasis, code, links,
# strikethrough, table cells, escapes) anywhere in a line ...
_MD_SPECIAL_RE = re.compile(r"([\\`*_\[\]|~])")
# ... and those that start a block (heading, list, quote, thematic break) at its beginning.
# (">" needs no escape: it becomes "&gt;", which never starts a quote.)
_MD_BLOCK_START_RE = re.compile(r"^(\d{1,9}(?=[.)](?:\s|$))|)([#+=.)-])")


def _md_inline(text: object) -> str:
    """Untrusted text made safe for one line of GFM, including a table cell:
    whitespace collapsed, inline Markdown punctuation (including ``|``) and a
    block-starting character at the beginning backslash-escaped, then HTML
    escaped (``<`` ``>`` ``&``)."""
    s = _one_line(_clean(text))
    s = _MD_SPECIAL_RE.sub(r"\\\1", s)
    s = _MD_BLOCK_START_RE.sub(r"\1\\\2", s)
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _md_code_block(text: str, info: str = "text") -> str:
    """A fenced code block that ``text`` cannot close early: the fence is one
    backtick longer than the longest backtick run in ``text`` (CommonMark
    §4.5), so the text is shown verbatim and HTML in it is never rendered."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def _exercise_emoji(ex: ExerciseResult) -> str:
    if ex.checks and all(c.passed for c in ex.checks):
        return "✅"
    if ex.score > 0:
        return "🟡"
    return "❌"


def to_markdown(result: GradeResult) -> str:
    """A GitHub-flavoured Markdown summary for ``$GITHUB_STEP_SUMMARY``.

    Layout: an H2 title with the score; a table with one row per exercise
    (Exercise | Score | Max | Status) plus a Total row; the seed and how to
    replay it; one ``<details>`` section per exercise listing each check's
    status, points, description, and (when not passed) its message in a fenced
    code block; integrity flags last, if any.

    Safety contract: untrusted text outside code blocks is HTML-escaped and
    Markdown-escaped (so ``|`` never adds a table column and ``<script>``
    never appears raw); messages go into fences longer than any backtick run
    inside them, so fences are always balanced.
    """
    out: list[str] = []
    pct = _pct(result.score, result.max_score)
    out.append(f"## Autograder: {_pts(result.score)} / {_pts(result.max_score)} ({_pts(pct)}%)")
    out.append("")
    out.append("| Exercise | Score | Max | Status |")
    out.append("| --- | ---: | ---: | :---: |")
    for ex in result.exercises:
        out.append(f"| {_md_inline(ex.name)} | {_pts(ex.score)} | {_pts(ex.max_score)} | {_exercise_emoji(ex)} |")
    out.append(f"| **Total** | **{_pts(result.score)}** | **{_pts(result.max_score)}** | |")
    out.append("")
    out.append(f"Seed `{result.seed}`: to reproduce this run, replay with `--seed {result.seed}`. "
               f"Duration {_secs(result.duration_s)} s.")
    meta = [f"{label}: {_md_inline(value)}" for label, value in
            (("Submission", result.submission), ("Started", result.started_at),
             ("GPU", result.gpu), ("Grader", result.grader_version),
             ("Isolation", _isolation_text(result))) if value]
    if meta:
        out.append("")
        out.append(" · ".join(meta))

    for ex in result.exercises:
        out.append("")
        out.append("<details>")
        # Raw HTML block: Markdown escapes are not processed here, so escape as HTML.
        out.append(f"<summary>{_exercise_emoji(ex)} <b>{html.escape(_one_line(_clean(ex.name)))}</b>: "
                   f"{_pts(ex.score)} / {_pts(ex.max_score)}</summary>")
        out.append("")
        if ex.note:
            out.append(f"> {_md_inline(ex.note)}")
            out.append("")
        for c in ex.checks:
            out.append(f"{_MD_STATUS[c.status]} **{_md_inline(c.name)}** · {c.status} · "
                       f"{_pts(c.score)} / {_pts(c.max_score)} points")
            if c.description:
                out.append(f"<br>{_md_inline(c.description)}")
            out.append("")
            if not c.passed and c.message:
                out.append(_md_code_block(_cut(_clean(c.message))))
                out.append("")
        out.append("</details>")

    if result.integrity_flags:
        out.append("")
        out.append("### Integrity flags")
        out.append("")
        for flag in result.integrity_flags:
            out.append(f"- {_md_inline(_cut(_clean(flag)))}")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# GitHub Classroom (autograding-grading-reporter)
# --------------------------------------------------------------------------


def classroom_env_var(runner_id: str) -> str:
    """The env var the reporter reads for ``runner_id``: the id upper-cased plus
    ``_RESULTS`` (reporter src/main.js: ``process.env[`${runner.trim().toUpperCase()}_RESULTS`]``)."""
    return f"{runner_id.strip().upper()}_RESULTS"


def _classroom_status(check: CheckResult) -> str:
    if check.passed:
        return "pass"
    if check.status in ("error", "timeout"):
        return "error"
    return "fail"  # failed, skipped


def classroom_payload(result: GradeResult) -> dict:
    """The decoded Classroom result: the runner-result object that
    ``autograding-command-grader``/``autograding-io-grader`` emit.

    ``{"version": 1, "status": "pass"|"fail"|"error", "max_score": N,
    "tests": [{"name", "status", "message", "test_code", "filename",
    "line_no", "execution_time", "score"}]}``, one test per check named
    ``"exercise/check"`` with ``score`` = the points awarded, so the
    reporter's total (sum of ``tests[].score``) equals ``result.score`` and its
    maximum (``max_score``) equals ``result.max_score``.

    Top-level status: "pass" when every check passed, else "fail" when any
    check failed or was skipped, else "error". The reporter prints ``message``
    only for "error" tests but prints ``test_code`` for every test, so
    ``test_code`` carries the check's description and, when not passed, its
    (cut) message.
    """
    tests = []
    for ex in result.exercises:
        for c in ex.checks:
            message = _cut(_clean(c.message), 500)
            code = _clean(c.description)
            if not c.passed and message:
                code = f"{code}\n{message}" if code else message
            tests.append({
                "name": f"{ex.name}/{c.name}",
                "status": _classroom_status(c),
                "message": message,
                "test_code": code,
                "filename": f"{ex.name}.py",
                "line_no": 0,
                "execution_time": f"{c.duration_s:.2f}s",
                "score": c.score,
            })
    statuses = {t["status"] for t in tests}
    if statuses <= {"pass"}:
        status = "pass"
    elif "fail" in statuses:
        status = "fail"
    else:
        status = "error"
    return {"version": 1, "status": status, "max_score": result.max_score, "tests": tests}


def to_classroom(result: GradeResult) -> str:
    """:func:`classroom_payload` as compact UTF-8 JSON, base64-encoded, with no
    newlines: the value of the reporter's ``<RUNNER_ID>_RESULTS`` env var (the
    graders' ``result`` step output)."""
    raw = json.dumps(classroom_payload(result), ensure_ascii=False, separators=(",", ":"))
    return base64.b64encode(raw.encode("utf-8")).decode("ascii")


# --------------------------------------------------------------------------
# Gradescope
# --------------------------------------------------------------------------


def _gradescope_output(check: CheckResult) -> str:
    parts = []
    if not check.passed:
        parts.append(f"[{check.status}]")
    if check.message:
        parts.append(_cut(_clean(check.message)))
    if check.description:
        parts.append(f"This check: {_one_line(_clean(check.description))}")
    if check.output and not check.passed:
        parts.append("--- output of your code ---\n" + _cut(_clean(check.output)))
    return "\n".join(parts)


def gradescope_payload(result: GradeResult) -> dict:
    """The ``results.json`` object (Gradescope "Autograder Specifications").

    Top level: ``score`` (= sum of tests' scores; Gradescope lets it override
    the tests' total, so they must agree), ``execution_time`` (int seconds),
    ``output`` (short plain-text summary), ``output_format``/
    ``test_output_format``/``test_name_format`` = ``"text"`` (so student text is
    never rendered as HTML/Markdown), ``visibility`` ``"visible"``,
    ``stdout_visibility`` ``"hidden"``, ``extra_data`` (seed, grader version,
    integrity flags: stored, not shown to students) and ``tests``.

    Each test: ``name`` ("exercise/check"), numeric ``score``/``max_score``,
    ``status`` "passed"|"failed" (Gradescope accepts only these two),
    ``output`` (message, description and, when not passed, the code's output),
    ``visibility``, ``number`` ("<exercise#>.<check#>", 1-based), ``tags``
    ([exercise]).
    """
    tests = []
    for i, ex in enumerate(result.exercises, start=1):
        for j, c in enumerate(ex.checks, start=1):
            tests.append({
                "name": f"{ex.name}/{c.name}",
                "number": f"{i}.{j}",
                "score": c.score,
                "max_score": c.max_score,
                "status": "passed" if c.passed else "failed",
                "output": _gradescope_output(c),
                "visibility": c.visibility,
                "tags": [ex.name],
            })
    summary = [f"Score {_pts(result.score)} / {_pts(result.max_score)}. "
               f"Seed {result.seed} ({_replay_hint(result.seed)})."]
    for ex in result.exercises:
        line = f"{ex.name}: {_pts(ex.score)} / {_pts(ex.max_score)}"
        if ex.note:
            line += f" ({_one_line(_clean(ex.note))})"
        summary.append(line)
    return {
        "score": float(sum(t["score"] for t in tests)),
        "execution_time": int(round(result.duration_s)),
        "output": "\n".join(summary),
        "output_format": "text",
        "test_output_format": "text",
        "test_name_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {
            "seed": result.seed,
            "grader_version": result.grader_version,
            "started_at": result.started_at,
            "gpu": result.gpu,
            "isolation": dict(result.isolation),
            "integrity_flags": [_clean(f) for f in result.integrity_flags],
        },
        "tests": tests,
    }


def to_gradescope(result: GradeResult) -> str:
    """:func:`gradescope_payload` as JSON text (indent 2), for
    ``/autograder/results/results.json``."""
    return json.dumps(gradescope_payload(result), indent=2, ensure_ascii=False) + "\n"


# --------------------------------------------------------------------------
# JUnit XML
# --------------------------------------------------------------------------


def _xml_text(text: object, limit: Optional[int] = MESSAGE_LIMIT) -> str:
    """Text legal in XML 1.0: ANSI sequences and every character outside the
    XML ``Char`` production removed (ElementTree escapes the rest)."""
    s = _clean(text)
    return _cut(s, limit) if limit else s


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
        _add_properties(suite, [("score", _pts(ex.score)), ("max_score", _pts(ex.max_score)),
                                ("seed", str(result.seed))] + ([("note", ex.note)] if ex.note else []))
        for c in ex.checks:
            case = ET.SubElement(suite, "testcase", {
                "classname": f"grader.{_xml_text(ex.name, None)}",
                "name": _xml_text(c.name, None),
                "time": f"{c.duration_s:.3f}",
            })
            _add_properties(case, [("score", _pts(c.score)), ("max_score", _pts(c.max_score))]
                            + ([("description", c.description)] if c.description else []))
            message = _xml_text(c.message)
            if c.status == "failed":
                tag, kind = "failure", "failed"
            elif c.status in ("error", "timeout"):
                tag, kind = "error", c.status
            elif c.status == "skipped":
                tag, kind = "skipped", "skipped"
            else:
                tag = kind = ""
            if tag:
                el = ET.SubElement(case, tag, message=_first_line(message))
                if tag != "skipped":
                    el.set("type", kind)
                el.text = message
            if c.output:
                ET.SubElement(case, "system-out").text = _xml_text(c.output)
        totals.update(tests=len(ex.checks), failures=counts["failed"],
                      errors=counts["error"] + counts["timeout"], skipped=counts["skipped"])
    for key in ("tests", "failures", "errors", "skipped"):
        root.set(key, str(totals[key]))
    root.set("time", f"{result.duration_s:.3f}")
    ET.indent(root)
    return '<?xml version="1.0" encoding="UTF-8"?>\n' + ET.tostring(root, encoding="unicode") + "\n"


# --------------------------------------------------------------------------
# Gradebook CSV and class summary
# --------------------------------------------------------------------------

GRADEBOOK_COLUMNS = ("student", "score", "max_score", *EXERCISES, "integrity_flags",
                     "seed", "duration_s", "status", "isolation", "submission", "error")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: object) -> str:
    """A text cell safe to open in a spreadsheet: control characters removed
    and a leading ``'`` added when it starts like a formula (= + - @)."""
    s = _clean(value).replace("\n", " ").replace("\t", " ")
    return "'" + s if s.startswith(_FORMULA_START) else s


def gradebook_csv(rows: Iterable[GradebookRow]) -> str:
    """The class gradebook: a header then one row per ``(student, result,
    error_message)`` tuple, columns :data:`GRADEBOOK_COLUMNS`.

    Graded rows (result is not None) have ``status`` "graded", scores rounded
    to 2 decimals, one column per standard exercise (empty when the result has
    no such exercise), integrity flags joined with "; ". Rows whose result is
    None have ``status`` "grader error", empty score columns and the message
    in ``error``. Every text cell is protected against formula injection.
    """
    buf = io.StringIO()
    writer = csv.DictWriter(buf, fieldnames=GRADEBOOK_COLUMNS, lineterminator="\n")
    writer.writeheader()
    for student, result, error in rows:
        row = {col: "" for col in GRADEBOOK_COLUMNS}
        row["student"] = _csv_cell(student)
        row["error"] = _csv_cell(error or "")
        if result is None:
            row["status"] = "grader error"
        else:
            row.update(score=_pts(result.score), max_score=_pts(result.max_score),
                       seed=str(result.seed), duration_s=_secs(result.duration_s),
                       status="graded", submission=_csv_cell(result.submission),
                       isolation=result.isolation["level"],
                       integrity_flags=_csv_cell("; ".join(result.integrity_flags)))
            for name in EXERCISES:
                ex = result.exercise(name)
                row[name] = _pts(ex.score) if ex is not None else ""
        writer.writerow(row)
    return buf.getvalue()


_BANDS = [(lo, lo + 9) for lo in range(0, 90, 10)] + [(90, 100)]


def _band_index(percent: float) -> int:
    return min(int(max(percent, 0.0) // 10), 9)


def class_summary_markdown(rows: Iterable[GradebookRow], bar_width: int = 40) -> str:
    """A Markdown overview of the class for the instructor.

    Sections: counts (graded, grader errors) and score statistics (mean,
    median, min, max, as points and %) over graded rows; a histogram of
    percentage bands 0-9 … 80-89, 90-100 with a text bar (scaled so the largest
    band is ``bar_width`` blocks); the mean score per exercise; the 10 checks
    most often failed, errored or timed out (skipped checks, such as GPU
    checks on a CPU runner, do not count) ("exercise/check", count, % of graded students), ties
    broken by name.
    """
    rows = list(rows)
    graded = [r for _, r, _ in rows if r is not None]
    errors = len(rows) - len(graded)
    out = ["## Class summary", ""]
    out.append(f"Students: {len(rows)} · graded: {len(graded)} · grader errors: {errors}")
    out.append("")
    if not graded:
        out.append("No graded submissions.")
        return "\n".join(out) + "\n"

    scores = [r.score for r in graded]
    maxima = [r.max_score for r in graded]
    percents = [_pct(r.score, r.max_score) for r in graded]
    max_label = _pts(maxima[0]) if len(set(maxima)) == 1 else "varies"
    out += ["| Statistic | Score | % |", "| --- | ---: | ---: |"]
    for label, fn in (("mean", statistics.fmean), ("median", statistics.median), ("min", min), ("max", max)):
        out.append(f"| {label} | {_pts(fn(scores))} | {_pts(fn(percents))} |")
    out.append(f"| max possible | {max_label} | 100 |")
    out.append("")

    out += ["### Distribution", "", "| Band (%) | Count | |", "| --- | ---: | --- |"]
    counts = Counter(_band_index(p) for p in percents)
    biggest = max(counts.values())
    for i, (lo, hi) in enumerate(_BANDS):
        n = counts.get(i, 0)
        bar = "█" * (round(n * bar_width / biggest) if n else 0)
        if n and not bar:
            bar = "▏"
        out.append(f"| {lo}-{hi} | {n} | {bar} |")
    out.append("")

    names = list(EXERCISES) + sorted({e.name for r in graded for e in r.exercises} - set(EXERCISES))
    out += ["### Per exercise", "", "| Exercise | Mean | Max | Mean % |", "| --- | ---: | ---: | ---: |"]
    for name in names:
        present = [e for e in (r.exercise(name) for r in graded) if e is not None]
        if not present:
            continue
        mean = statistics.fmean(e.score for e in present)
        top = max(e.max_score for e in present)
        out.append(f"| {_md_inline(name)} | {_pts(mean)} | {_pts(top)} | {_pts(_pct(mean, top))} |")
    out.append("")

    missed = Counter(f"{e.name}/{c.name}" for r in graded for e in r.exercises
                     for c in e.checks if c.status not in ("passed", "skipped"))
    out += ["### Checks most often failed", ""]
    if not missed:
        out.append("Every check passed for every graded student.")
    else:
        out += ["| Check | Students | % |", "| --- | ---: | ---: |"]
        for key, n in sorted(missed.items(), key=lambda kv: (-kv[1], kv[0]))[:10]:
            out.append(f"| {_md_inline(key)} | {n} | {_pts(100.0 * n / len(graded))} |")
    return "\n".join(out) + "\n"


# --------------------------------------------------------------------------
# Writing files
# --------------------------------------------------------------------------


def write_all(result: GradeResult, *, console: Optional[PathLike] = None,
              json: Optional[PathLike] = None, markdown: Optional[PathLike] = None,
              classroom: Optional[PathLike] = None, gradescope: Optional[PathLike] = None,
              junit: Optional[PathLike] = None) -> dict[str, Path]:
    """Write each output whose path is given (``None`` = skip) and return
    ``{output name: path written}``.

    Parent folders are created. Files are UTF-8 (a lone surrogate, which
    cannot be encoded, is written as a backslash escape). Every file is
    replaced atomically, never written through a link or opened if it is a
    FIFO (:mod:`grader.report_files`), except the Markdown file when it is the
    path in ``$GITHUB_STEP_SUMMARY``: GitHub expects steps to append to it.
    The console file has no colours and uses Unicode symbols. Raises
    :class:`~grader.report_files.ReportPathError` for a path that cannot be
    written safely.
    """
    renderers = {
        "console": (console, lambda: to_console(result, color=False, unicode=True)),
        "json": (json, lambda: to_json(result)),
        "markdown": (markdown, lambda: to_markdown(result)),
        "classroom": (classroom, lambda: to_classroom(result)),
        "gradescope": (gradescope, lambda: to_gradescope(result)),
        "junit": (junit, lambda: to_junit(result)),
    }
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    written: dict[str, Path] = {}
    for name, (path, render) in renderers.items():
        if path is None:
            continue
        append = (name == "markdown" and step_summary
                  and os.path.abspath(step_summary) == os.path.abspath(path))
        written[name] = (append_text if append else write_text)(path, render())
    return written
