"""The report a person reads in a terminal or a CI log."""

from __future__ import annotations

import sys
from typing import Optional

from grader.engine.results import GradeResult
from grader.writers.formatting import clean, cut, grader_text, isolation_text, one_line, pct, pts, secs, seed_line, throughput_text

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

    Layout: a header (score/max, seed (formatting.seed_line), duration,
    submission/GPU/grader version when set, time limits when scaled, isolation); per exercise a line
    with its score and note, then one line per check (status symbol, name,
    points, and the status word when not passed) with the message of every
    check that did not pass indented below it (cut at MESSAGE_LIMIT). A
    skipped check (one that cannot run here) shows its reason in grey and is
    not a failure. Integrity flags, if any, come last.

    ``color`` adds ANSI colours; ``unicode`` picks ✓/✗ over ASCII symbols
    (``None``: whatever ``sys.stdout`` can encode).
    """
    use_unicode = _stdout_supports_unicode() if unicode is None else unicode
    symbols = _SYMBOLS_UNICODE if use_unicode else _SYMBOLS_ASCII
    rule = ("─" if use_unicode else "-") * 60

    def paint(code: str, text: str) -> str:
        return f"\x1b[{code}m{text}\x1b[0m" if color else text

    lines = [rule, paint("1", f"Score: {pts(result.score)} / {pts(result.max_score)} ({pts(pct(result.score, result.max_score))}%)"),
             f"Seed: {seed_line(result)}", f"Duration: {secs(result.duration_s)} s"]
    for label, value in (("Submission", result.submission), ("Started", result.started_at),
                         ("GPU", result.gpu), ("Grader", grader_text(result))):
        if value:
            lines.append(f"{label}: {one_line(clean(value))}")
    if result.timeout_scale != 1.0:
        lines.append(f"Time limits: x{result.timeout_scale:g} (--timeout-scale)")
    lines.append(f"Isolation: {isolation_text(result)}")
    if result.throughput:
        lines.append(f"Throughput: {throughput_text(result)}")
    lines.append(rule)

    width = max((len(c.name) for c in result.all_checks()), default=10)
    for ex in result.exercises:
        lines += ["", paint("1", f"{ex.name}: {pts(ex.score)} / {pts(ex.max_score)}")]
        if ex.note:
            lines.append(f"  note: {one_line(cut(clean(ex.note)))}")
        for c in ex.checks:
            tail = "" if c.passed else f"  ({'not run' if c.status == 'skipped' else c.status})"
            lines.append(f"  {paint(_COLORS[c.status], symbols[c.status])} {one_line(clean(c.name)).ljust(width)}  "
                         f"{pts(c.score)}/{pts(c.max_score)}{tail}")
            if not c.passed and c.message:
                lines += [paint("90", f"      {line}".rstrip()) if c.status == "skipped" else f"      {line}".rstrip()
                          for line in cut(clean(c.message)).split("\n")]
    if result.integrity_flags:
        lines += ["", rule, paint("33;1", "INTEGRITY FLAGS (for the instructor):")]
        lines += [f"  - {one_line(cut(clean(flag)))}" for flag in result.integrity_flags]
    lines.append(rule)
    return "\n".join(lines) + "\n"
