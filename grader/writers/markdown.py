"""The Markdown report: a GitHub job summary, a Classroom 50 release body, a student's feedback file."""

from __future__ import annotations

import html
import re

from grader.engine.results import ExerciseResult, GradeResult
from grader.writers.formatting import (
    MARKDOWN_REPORT_BYTES,
    all_ran_passed,
    clean,
    cut,
    fit,
    grader_text,
    isolation_text,
    leaderboard_share,
    one_line,
    pct,
    pts,
    ran,
    secs,
    seed_line,
    share_bar,
    throughput_text,
)

_MD_STATUS = {"passed": "✅", "failed": "❌", "error": "💥", "timeout": "⏱️", "skipped": "⏭️"}
LEGEND = ("✅ passed (an exercise: every check that ran passed) · 🟡 some points · ❌ failed, no points · "
          "💥 your code raised or crashed · ⏱️ timed out · ⏭️ not run here (it needs a GPU, or grading stopped "
          "early); a check worth 0 points that cannot run here costs nothing")
# Characters that start inline Markdown constructs anywhere in a line ...
_MD_SPECIAL_RE = re.compile(r"([\\`*_\[\]|~])")
# ... and those that start a block at its beginning (">" becomes "&gt;", which never starts a quote).
_MD_BLOCK_START_RE = re.compile(r"^(\d{1,9}(?=[.)](?:\s|$))|)([#+=.)-])")


def md_inline(text: object) -> str:
    """Untrusted text made safe for one line of GFM, a table cell included: whitespace
    collapsed, Markdown punctuation and a block-starting character escaped, then HTML escaped."""
    s = one_line(clean(text))
    s = _MD_SPECIAL_RE.sub(r"\\\1", s)
    s = _MD_BLOCK_START_RE.sub(r"\1\\\2", s)
    return s.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def md_code_block(text: str, info: str = "text") -> str:
    """A fenced code block ``text`` cannot close early (the fence is longer than any backtick run in it)."""
    longest = max((len(m) for m in re.findall(r"`+", text)), default=0)
    fence = "`" * max(3, longest + 1)
    return f"{fence}{info}\n{text}\n{fence}"


def exercise_emoji(ex: ExerciseResult) -> str:
    """✅ every check that ran passed and no point was missed; ⏭️ nothing ran and nothing was at stake;
    🟡 some points; ❌ none."""
    if all_ran_passed(ex) and ex.score == ex.max_score:
        return "✅" if ran(ex.checks) or not ex.checks else "⏭️"
    return "🟡" if ex.score > 0 else "❌"


def to_markdown(result: GradeResult) -> str:
    """A GitHub-flavoured Markdown report.

    Layout: an H2 title with the score; a table with one row per exercise
    plus a Total row; the seed (:func:`~grader.writers.formatting.seed_line`); the isolation; one
    ``<details>`` section per exercise listing each check's status, points,
    description and (when it did not pass) its message in a fenced block;
    the throughput figure's line, when the grader measured it or says why not
    (each level's share of the raw gather, a bar of the whole-batch share);
    integrity flags, if any; the legend of the symbols last. A check that
    could not run here (skipped) is marked ⏭️ and never makes an exercise
    look failed.

    Untrusted text outside code blocks is HTML- and Markdown-escaped;
    messages go into fences longer than any backtick run inside them. At most
    :data:`~grader.writers.formatting.MARKDOWN_REPORT_BYTES` (free text cut to fit).
    """
    return fit(_render, result, MARKDOWN_REPORT_BYTES)


def _render(result: GradeResult) -> str:
    out = [f"## Autograder: {pts(result.score)} / {pts(result.max_score)} ({pts(pct(result.score, result.max_score))}%)", "",
           "| Exercise | Score | Max | Status |", "| --- | ---: | ---: | :---: |"]
    for ex in result.exercises:
        out.append(f"| {md_inline(ex.name)} | {pts(ex.score)} | {pts(ex.max_score)} | {exercise_emoji(ex)} |")
    out += [f"| **Total** | **{pts(result.score)}** | **{pts(result.max_score)}** | |", "",
            f"Seed: {seed_line(result)}. Duration {secs(result.duration_s)} s."]
    meta = [f"{label}: {md_inline(value)}" for label, value in
            (("Submission", result.submission), ("Started", result.started_at), ("GPU", result.gpu),
             ("Grader", grader_text(result)), ("Isolation", isolation_text(result))) if value]
    out += ["", " · ".join(meta)]
    if result.throughput:
        share = leaderboard_share(result)
        bar = f" `{share_bar(share / 100)}`" if share is not None else ""
        out += ["", f"Throughput, share of the raw gather measured by the grader:{bar} {md_inline(throughput_text(result))}"]
    for ex in result.exercises:
        out += ["", "<details>",
                f"<summary>{exercise_emoji(ex)} <b>{html.escape(one_line(clean(ex.name)))}</b>: {pts(ex.score)} / {pts(ex.max_score)}</summary>", ""]
        if ex.note:
            out += [f"> {md_inline(cut(clean(ex.note)))}", ""]
        for c in ex.checks:
            status = "not run" if c.status == "skipped" else c.status
            out.append(f"{_MD_STATUS[c.status]} **{md_inline(c.name)}** · {status} · {pts(c.score)} / {pts(c.max_score)} points")
            if c.description:
                out.append(f"<br>{md_inline(c.description)}")
            out.append("")
            if not c.passed and c.message:
                out += [md_code_block(cut(clean(c.message))), ""]
        out.append("</details>")
    if result.integrity_flags:
        out += ["", "### Integrity flags", ""] + [f"- {md_inline(cut(clean(flag)))}" for flag in result.integrity_flags]
    out += ["", f"<sub>{LEGEND}</sub>"]
    return "\n".join(out) + "\n"
