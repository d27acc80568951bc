"""Text helpers shared by the writers: cleaning, cutting, numbers, the isolation line.

Every writer is a presentation of :class:`~grader.engine.results.GradeResult`. The
result model has already cleaned student text (:func:`grader.text.clean_text`);
:func:`clean` is applied again here, so a writer is safe even for a result
built elsewhere.
"""

from __future__ import annotations

import math
from typing import Callable

from grader.engine.results import CheckResult, ExerciseResult, GradeResult
from grader.isolation import LEVEL_MEANINGS
from grader.text import clean_text

#: Messages (and exercise notes) longer than this (in characters) are cut in every human-facing writer.
MESSAGE_LIMIT = 1500
#: The most bytes (UTF-8) of one student's JSON report, Gradescope results.json and feedback Markdown.
JSON_REPORT_BYTES = 256 * 1024
MARKDOWN_REPORT_BYTES = 64 * 1024
#: The text limits :func:`fit` tries, in turn, when a rendering is too large.
_FIT_LIMITS = (1000, 400, 150, 60, 0)


def fit(render: Callable[[GradeResult], str], result: GradeResult, max_bytes: int) -> str:
    """``render(result)`` if it fits in ``max_bytes`` (UTF-8), else the rendering of
    ``result.with_text_limit(n)`` for the largest n of :data:`_FIT_LIMITS` that fits.

    Only free text is cut (messages, outputs, notes, flags; each cut says so), so
    scores and statuses always survive. The last attempt (no free text at all)
    is returned even if it does not fit, which the bounded number of checks and
    exercises rules out.
    """
    text = render(result)
    for limit in _FIT_LIMITS:
        if len(text.encode("utf-8", "backslashreplace")) <= max_bytes:
            break
        text = render(result.with_text_limit(limit))
    return text


def clean(text: object) -> str:
    """Printable, inert text (see :func:`grader.text.clean_text`)."""
    return clean_text(text)


def cut(text: str, limit: int = MESSAGE_LIMIT) -> str:
    """``text`` cut to at most ``limit`` characters plus a note saying how much was cut."""
    if len(text) <= limit:
        return text
    return text[:limit].rstrip() + f"\n… [cut: {len(text) - limit} more characters]"


def one_line(text: str) -> str:
    """Whitespace (newlines included) collapsed to single spaces."""
    return " ".join(text.split())


def pts(x: float) -> str:
    """A score for display: rounded to 2 decimals, no trailing zeros ("12.5", "20")."""
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return str(x)
    s = f"{round(float(x), 2):.2f}".rstrip("0").rstrip(".")
    return "0" if s in ("-0", "") else s


def secs(x: float) -> str:
    return f"{float(x):.2f}"


def pct(score: float, max_score: float) -> float:
    return 100.0 * score / max_score if max_score else 0.0


#: What the writers a student reads say instead of a secret seed of record (GradeResult.seed_secret).
SECRET_SEED_TEXT = "secret (a per-student seed of record: your instructor can replay this grading)"

#: What they say of the push feedback's public seed (GradeResult.seed_from_repository). No writer offers a command:
#: the student has no grader to run one with.
FEEDBACK_SEED_TEXT = ("{seed}, fixed by your repository's name: this feedback is graded on fixed inputs of your own, so the "
                      "same files always get the same score and the same feedback; the grade of record uses other inputs "
                      "of the same kind")

#: And of any other seed (a fresh one, a class seed, one given with --seed).
PLAIN_SEED_TEXT = "{seed} (every random input of this grading was drawn from it; the same seed draws the same inputs)"


def grader_text(result: GradeResult) -> str:
    """The grader's version and, where recorded and not the same words, the start of its hash.

    A version derived from the hash (grader.engine.provenance.grader_version) reads "sha256 0123456789ab";
    an older report's "1.0" reads "1.0 (sha256 0123456789ab)"."""
    short = result.grader_sha256[:12]
    if short and result.grader_version in ("", short):
        return f"sha256 {short}"
    return result.grader_version + (f" (sha256 {short})" if short else "")


def seed_line(result: GradeResult) -> str:
    """The seed as the reports show it: a secret seed of record is withheld, the push feedback's public seed says
    that the same files get the same inputs and the grade of record others, any other seed is shown as it is."""
    if result.seed_secret:
        return SECRET_SEED_TEXT
    template = FEEDBACK_SEED_TEXT if result.seed_from_repository else PLAIN_SEED_TEXT
    return template.format(seed=result.seed)


def isolation_text(result: GradeResult) -> str:
    """The isolation for a report header: the level, what it means, the layers that held and, below
    ``jail``, why the others did not ("WEAK" in capitals: a reader should notice it)."""
    level, layers = result.isolation["level"], ", ".join(result.isolation.get("layers", {})) or "none"
    text = f"{'WEAK' if level == 'weak' else level}: {LEVEL_MEANINGS[level]} (layers that held: {layers})"
    return text if level == "jail" else f"{text}; {one_line(clean(result.isolation['reason']))}"


def ran(checks: list[CheckResult]) -> list[CheckResult]:
    """The checks that ran: every status but "skipped" (a GPU check on a CPU runner, say)."""
    return [c for c in checks if c.status != "skipped"]


def scored(checks: list[CheckResult]) -> list[CheckResult]:
    """The checks a points-only consumer (Gradescope, Classroom 50) is given.

    A skipped check worth nothing (a GPU check on a CPU runner) is left out:
    it is neither a pass nor a failure. A skipped check worth points (not run
    after --fail-fast) stays, so the maximum is honest, and counts as not passed.
    """
    return [c for c in checks if c.status != "skipped" or c.max_score]


def all_ran_passed(result: GradeResult | ExerciseResult) -> bool:
    """True when every check that ran passed (skipped checks are neither passes nor failures)."""
    checks = result.all_checks() if isinstance(result, GradeResult) else result.checks
    return all(c.passed for c in ran(checks))


#: The level the leaderboards rank by (Gradescope's, the class summary's, the gradebook's column): whole batches.
LEADERBOARD_LEVEL = "whole batches"


def throughput_shares(result: GradeResult) -> list[tuple[str, float, float, float]]:
    """(level, median share, lowest, highest) of each level the grader measured, in its order; [] when not measured.

    Shares are fractions of the raw gather's rate. A malformed figure (a report edited by hand) gives [].
    """
    figure = result.throughput
    levels = figure.get("levels") if figure.get("status") == "measured" else None
    found = []
    for name, level in (levels.items() if isinstance(levels, dict) else ()):
        values = [level.get(key) if isinstance(level, dict) else None for key in ("share", "low", "high")]
        if not all(isinstance(v, (int, float)) and not isinstance(v, bool) and math.isfinite(v) for v in values):
            return []
        found.append((str(name), *(float(v) for v in values)))
    return found


def share_bar(share: float, width: int = 20, unicode: bool = True) -> str:
    """A text bar of ``share`` (a fraction, cut to 0..1) out of ``width`` cells."""
    full = round(width * min(max(share, 0.0), 1.0))
    return ("█" * full + "░" * (width - full)) if unicode else ("#" * full + "." * (width - full))


def throughput_text(result: GradeResult) -> str:
    """The throughput figure in one line ("" when it was not asked for): each level's median share of the raw
    gather, the leaderboard level's range over the rounds, and where it was measured; or why it was not measured."""
    figure = result.throughput
    if not figure:
        return ""
    shares = throughput_shares(result)
    if not shares:
        return f"not measured ({one_line(clean(figure.get('reason', 'no figure')))})"
    parts = " · ".join(f"{name} {100 * share:.1f} %" for name, share, _low, _high in shares)
    ranges = [f"{name} {100 * low:.1f}-{100 * high:.1f} %" for name, _share, low, high in shares if name == LEADERBOARD_LEVEL]
    machine = figure.get("machine") if isinstance(figure.get("machine"), dict) else {}
    where = ", ".join(one_line(clean(machine[key])) for key in ("cpu", "isolation") if machine.get(key))
    return (f"{parts} of the raw gather (median of {clean(figure.get('rounds', '?'))} rounds"
            + (f"; range {ranges[0]}" if ranges else "") + (f"; {where}" if where else "") + ", 0 workers)")


def leaderboard_share(result: GradeResult) -> float | None:
    """The leaderboard level's median share of the raw gather, in percent (1 decimal), or None when not measured."""
    share = next((s for name, s, _low, _high in throughput_shares(result) if name == LEADERBOARD_LEVEL), None)
    return None if share is None else round(100 * share, 1)
