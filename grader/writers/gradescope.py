"""Gradescope's ``/autograder/results/results.json`` (Autograder Specifications).

One test per check that ran; a check that cannot run on this machine (a GPU
check on Gradescope's CPU containers) is left out, since Gradescope's tests
are either "passed" or "failed". Outputs are Markdown (``output_format``
"md"): student text only ever appears inside fenced code blocks or escaped.
"""

from __future__ import annotations

import json

from grader.engine.results import CheckResult, GradeResult
from grader.isolation import LEVEL_MEANINGS
from grader.writers.formatting import (
    JSON_REPORT_BYTES,
    LEADERBOARD_LEVEL,
    clean,
    cut,
    fit,
    isolation_text,
    leaderboard_share,
    pts,
    scored,
    seed_line,
    throughput_text,
)
from grader.writers.markdown import md_code_block, md_inline

#: The leaderboard column's name on Gradescope.
LEADERBOARD_NAME = f"{LEADERBOARD_LEVEL.capitalize()}, % of the raw gather"


def _test_output(check: CheckResult) -> str:
    parts = []
    if check.description:
        parts.append(md_inline(check.description))
    if not check.passed:
        parts.append(f"**{check.status}**")
        if check.message:
            parts.append(md_code_block(cut(clean(check.message))))
        if check.output:
            parts += ["Output of your code:", md_code_block(cut(clean(check.output)))]
    return "\n\n".join(parts)


def gradescope_payload(result: GradeResult) -> dict:
    """The ``results.json`` object.

    Top level: ``score`` (the sum of the tests' scores), ``execution_time``
    (int seconds), ``output`` (a Markdown summary), ``output_format`` and
    ``test_output_format`` "md", ``test_name_format`` "text", ``visibility``
    "visible", ``stdout_visibility`` "hidden", ``extra_data`` (seed, grader
    version, isolation, integrity flags: stored, not shown to students) and
    ``tests``. Each test: ``name`` ("exercise/check"), ``number``
    ("<exercise#>.<check#>"), ``score``, ``max_score``, ``status``
    "passed"|"failed", ``output``, ``visibility`` (from the rubric), ``tags``.
    When the grader measured its throughput figure: ``leaderboard``, one entry
    ``{"name", "value", "order": "desc"}`` whose value is the whole-batch share
    of the raw gather in percent (Gradescope's leaderboard; left out when the
    figure was not measured), and a line in ``output``.
    """
    tests = []
    for i, ex in enumerate(result.exercises, start=1):
        keep = {id(c) for c in scored(ex.checks)}
        for j, c in enumerate(ex.checks, start=1):
            if id(c) not in keep:
                continue
            tests.append({"name": f"{ex.name}/{c.name}", "number": f"{i}.{j}", "score": c.score, "max_score": c.max_score,
                          "status": "passed" if c.passed else "failed", "output": _test_output(c),
                          "visibility": c.visibility, "tags": [ex.name]})
    seed = f"Seed: {seed_line(result)}."
    summary = [f"**Score {pts(result.score)} / {pts(result.max_score)}.** {seed}", "",
               f"Your code ran at isolation level **{result.isolation['level']}**: {LEVEL_MEANINGS[result.isolation['level']]}.", ""]
    summary += [f"- {md_inline(ex.name)}: {pts(ex.score)} / {pts(ex.max_score)}" + (f" ({md_inline(cut(clean(ex.note)))})" if ex.note else "")
                for ex in result.exercises]
    if result.throughput:
        summary += ["", f"Throughput, share of the raw gather measured by the grader: {md_inline(throughput_text(result))}"]
    share = leaderboard_share(result)
    leaderboard = {} if share is None else {"leaderboard": [{"name": LEADERBOARD_NAME, "value": share, "order": "desc"}]}
    return {
        "score": float(sum(t["score"] for t in tests)),
        "execution_time": int(round(result.duration_s)),
        "output": "\n".join(summary),
        "output_format": "md",
        "test_output_format": "md",
        "test_name_format": "text",
        "visibility": "visible",
        "stdout_visibility": "hidden",
        "extra_data": {**({} if result.seed_secret else {"seed": result.seed}), "grader_version": result.grader_version,
                       "grader_sha256": result.grader_sha256, "started_at": result.started_at,
                       "gpu": result.gpu, "isolation": isolation_text(result), "isolation_level": result.isolation["level"],
                       "isolation_layers": list(result.isolation.get("layers", {})),
                       "integrity_flags": [clean(f) for f in result.integrity_flags]},
        "tests": tests,
        **leaderboard,
    }


def to_gradescope(result: GradeResult) -> str:
    """:func:`gradescope_payload` as JSON text, for ``/autograder/results/results.json`` (at most
    :data:`~grader.writers.formatting.JSON_REPORT_BYTES`, free text cut to fit)."""
    return fit(lambda r: json.dumps(gradescope_payload(r), indent=2, ensure_ascii=False) + "\n", result, JSON_REPORT_BYTES)


def failure_payload(reason: str) -> dict:
    """A valid results.json for a grading that could not run at all: score 0 and why."""
    return {"score": 0.0, "output": f"The autograder could not grade this submission: {clean(reason)[:2000]}",
            "output_format": "text", "stdout_visibility": "hidden", "tests": []}
