"""The instructor's class views: the gradebook CSV and the class summary in Markdown."""

from __future__ import annotations

import csv
import io
import statistics
from collections import Counter
from typing import Iterable, Optional, Tuple

from grader.engine.results import EXERCISES, GradeResult
from grader.writers.formatting import LEADERBOARD_LEVEL, clean, leaderboard_share, pct, pts, secs, throughput_shares
from grader.writers.markdown import md_inline

#: A gradebook row: (student name, result or None when the grader failed, error message).
GradebookRow = Tuple[str, Optional[GradeResult], str]

GRADEBOOK_COLUMNS = ("student", "score", "max_score", *EXERCISES, "whole_batches_pct_of_raw_gather", "integrity_flags",
                     "seed", "duration_s", "confirmed_alone", "unconfirmed", "status", "isolation", "grader_sha256",
                     "commit", "server_time", "submitted_via", "submission", "error")
_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def _csv_cell(value: object) -> str:
    """A text cell safe to open in a spreadsheet: control characters removed
    and a leading ``'`` added when it starts like a formula (= + - @)."""
    s = clean(value).replace("\n", " ").replace("\t", " ")
    return "'" + s if s.startswith(_FORMULA_START) else s


def gradebook_csv(rows: Iterable[GradebookRow]) -> str:
    """The class gradebook: a header then one row per ``(student, result,
    error_message)`` tuple, columns :data:`GRADEBOOK_COLUMNS`.

    Graded rows (result is not None) have ``status`` "graded", scores rounded
    to 2 decimals, one column per standard exercise (empty when the result has
    no such exercise), integrity flags joined with "; ". Rows whose result is
    None have ``status`` "grader error", empty score columns and the message
    in ``error``. ``whole_batches_pct_of_raw_gather`` is the grader's throughput
    figure (the whole-batch median share of the raw gather, in percent; empty
    when it was not measured). ``confirmed_alone`` counts the checks whose verdict comes
    from a run alone (a timeout, or a check that failed while the machine was
    overloaded: :mod:`grader.engine.confirm`), ``unconfirmed`` those still
    waiting for one (``batch`` grades such a row again). Every text cell is protected against formula injection.
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
            row.update(score=pts(result.score), max_score=pts(result.max_score),
                       seed=str(result.seed), duration_s=secs(result.duration_s),
                       confirmed_alone=str(len(result.confirmations("confirmed")) + len(result.confirmations("passed"))),
                       unconfirmed=str(len(result.confirmations("pending"))),
                       status="graded", submission=_csv_cell(result.submission),
                       isolation=result.isolation["level"], grader_sha256=_csv_cell(result.grader_sha256),
                       commit=_csv_cell(result.provenance.get("commit", "")),
                       server_time=_csv_cell(result.provenance.get("server_time", "")),
                       submitted_via=_csv_cell(result.provenance.get("source", "")),
                       integrity_flags=_csv_cell("; ".join(result.integrity_flags)))
            share = leaderboard_share(result)
            row["whole_batches_pct_of_raw_gather"] = "" if share is None else f"{share:.1f}"
            for name in EXERCISES:
                ex = result.exercise(name)
                row[name] = pts(ex.score) if ex is not None else ""
        writer.writerow(row)
    return buf.getvalue()


def seeds_line(graded: list[GradeResult]) -> str:
    """How the class's seeds were chosen: secret per student (a course key), or a class seed anyone can compute."""
    secret = sum(1 for r in graded if r.seed_secret)
    if secret == len(graded):
        return "Seeds: a secret seed of record per student (derived from the course key, GRADER_SEED_KEY)."
    public = len(graded) - secret
    return (f"Seeds: {public} of {len(graded)} graded students got a seed that is not secret (no GRADER_SEED_KEY: "
            "the class seed), so their inputs could be computed in advance from the grader's source.")


def confirmations_line(graded: list[GradeResult]) -> str:
    """How many checks were confirmed alone (a verdict the machine's load could cause), or "" when none was."""
    confirmed = [c for r in graded for c in r.confirmations("confirmed")]
    passed = [c for r in graded for c in r.confirmations("passed")]
    pending = [c for r in graded for c in r.confirmations("pending")]
    if not (confirmed or passed or pending):
        return ""
    students = sum(1 for r in graded if r.confirmations("confirmed") or r.confirmations("passed"))
    line = (f"Confirmations: {len(confirmed) + len(passed)} check(s) of {students} student(s) were run again alone "
            f"({len(passed)} passed on confirmation, {len(confirmed)} kept their verdict).")
    if pending:
        line += f" {len(pending)} check(s) still wait for a confirmation: run batch again."
    return line


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
    broken by name; the throughput leaderboard (:func:`throughput_leaderboard`).
    """
    rows = list(rows)
    graded = [r for _, r, _ in rows if r is not None]
    errors = len(rows) - len(graded)
    out = ["## Class summary", ""]
    out.append(f"Students: {len(rows)} · graded: {len(graded)} · grader errors: {errors}")
    out.append("")
    if graded:
        out += [seeds_line(graded), ""]
        if line := confirmations_line(graded):
            out += [line, ""]
    if not graded:
        out.append("No graded submissions.")
        return "\n".join(out) + "\n"

    scores = [r.score for r in graded]
    maxima = [r.max_score for r in graded]
    percents = [pct(r.score, r.max_score) for r in graded]
    max_label = pts(maxima[0]) if len(set(maxima)) == 1 else "varies"
    out += ["| Statistic | Score | % |", "| --- | ---: | ---: |"]
    for label, fn in (("mean", statistics.fmean), ("median", statistics.median), ("min", min), ("max", max)):
        out.append(f"| {label} | {pts(fn(scores))} | {pts(fn(percents))} |")
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
        out.append(f"| {md_inline(name)} | {pts(mean)} | {pts(top)} | {pts(pct(mean, top))} |")
    out.append("")

    missed = Counter(f"{e.name}/{c.name}" for r in graded for e in r.exercises
                     for c in e.checks if c.status not in ("passed", "skipped"))
    out += ["### Checks most often failed", ""]
    if not missed:
        out.append("Every check passed for every graded student.")
    else:
        out += ["| Check | Students | % |", "| --- | ---: | ---: |"]
        for key, n in sorted(missed.items(), key=lambda kv: (-kv[1], kv[0]))[:10]:
            out.append(f"| {md_inline(key)} | {n} | {pts(100.0 * n / len(graded))} |")
    out += ["", *throughput_leaderboard(rows)]
    return "\n".join(out) + "\n"


def throughput_leaderboard(rows: list[GradebookRow]) -> list[str]:
    """The class's throughput leaderboard in Markdown: the students whose figure the grader measured, by their
    whole-batch share of the raw gather (highest first; ties by student, named as the gradebook names them), with the
    other levels, the range over the rounds and the machine; then how many were not measured."""
    measured = []
    for student, result, _ in rows:
        shares = {name: (share, low, high) for name, share, low, high in throughput_shares(result)} if result else {}
        if LEADERBOARD_LEVEL in shares:
            measured.append((student, result, shares))
    measured.sort(key=lambda entry: (-entry[2][LEADERBOARD_LEVEL][0], entry[0]))
    out = ["### Throughput leaderboard", ""]
    if not measured:
        return out + ["No throughput figure was measured (the grader measures it when every tokens check passes)."]
    out += [f"{LEADERBOARD_LEVEL.capitalize()} as a share of the raw gather, measured by the grader on the grading "
            "machine (median of its rounds; range: lowest-highest round). It informs: it changes no score unless the "
            "course's rubric gives it points (its [throughput] table), and a right answer written against the "
            "measurement can still move it within what the grader's checks of the measured run allow "
            "(grader/docs/throughput.md).", "",
            "| Rank | Student | Whole batches | Range | Per item | \\_\\_getitems\\_\\_ | Machine |",
            "| ---: | --- | ---: | ---: | ---: | ---: | --- |"]
    for rank, (student, result, shares) in enumerate(measured, start=1):
        share, low, high = shares[LEADERBOARD_LEVEL]
        others = [f"{100 * shares[name][0]:.1f} %" if name in shares else "" for name in ("per item", "__getitems__")]
        machine = result.throughput.get("machine") if isinstance(result.throughput.get("machine"), dict) else {}
        where = ", ".join(str(machine[key]) for key in ("cpu", "isolation") if machine.get(key))
        out.append(f"| {rank} | {md_inline(student)} | {100 * share:.1f} % | {100 * low:.1f}-{100 * high:.1f} % | "
                   f"{others[0]} | {others[1]} | {md_inline(where)} |")
    missing = len(rows) - len(measured)
    if missing:
        out += ["", f"Not measured: {missing} student{'s' if missing != 1 else ''} (a tokens check did not pass, "
                "the figure was withheld, or a grader error)."]
    return out
