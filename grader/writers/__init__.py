"""Render one :class:`~grader.engine.results.GradeResult` for each consumer, and write the files.

==========================  =====================================================
module / function           consumer
==========================  =====================================================
console.to_console          a person reading a terminal or a CI log
json_report.to_json         machines; the lossless form, the grade of record
markdown.to_markdown        a GitHub job summary, a Classroom 50 release body
gradescope.to_gradescope    Gradescope's ``/autograder/results/results.json``
classroom50                 Classroom 50's ``result.json`` (classroom50/result/v1)
junit.to_junit              JUnit XML readers (CI test tabs)
gradebook                   the instructor's class gradebook (CSV) and summary (Markdown)
==========================  =====================================================

Every writer depends on the result model only. A check that could not run on
the machine (skipped: a GPU check on a CPU runner) is never shown as a
failure: each writer leaves it out or marks it skipped in its consumer's terms.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Optional, Union

from grader.engine.results import GradeResult
from grader.report_files import append_text, write_text
from grader.writers.console import to_console
from grader.writers.formatting import MESSAGE_LIMIT
from grader.writers.gradebook import GRADEBOOK_COLUMNS, class_summary_markdown, gradebook_csv
from grader.writers.gradescope import gradescope_payload, to_gradescope
from grader.writers.json_report import to_json
from grader.writers.junit import to_junit
from grader.writers.markdown import to_markdown

__all__ = ["MESSAGE_LIMIT", "GRADEBOOK_COLUMNS", "to_console", "to_json", "to_markdown", "gradescope_payload",
           "to_gradescope", "to_junit", "gradebook_csv", "class_summary_markdown", "write_all"]

PathLike = Union[str, "os.PathLike[str]"]


def write_all(result: GradeResult, *, console: Optional[PathLike] = None, json: Optional[PathLike] = None,
              markdown: Optional[PathLike] = None, gradescope: Optional[PathLike] = None,
              junit: Optional[PathLike] = None) -> dict[str, Path]:
    """Write each output whose path is given (``None`` = skip) and return ``{output name: path written}``.

    Parent folders are created. Files are UTF-8. Every file is replaced
    atomically, never written through a link or opened if it is a FIFO
    (:mod:`grader.report_files`), except the Markdown file when it is the
    path in ``$GITHUB_STEP_SUMMARY``: GitHub expects steps to append to it.
    Raises :class:`~grader.report_files.ReportPathError` for a path that
    cannot be written safely.
    """
    renderers = {
        "console": (console, lambda: to_console(result, color=False, unicode=True)),
        "json": (json, lambda: to_json(result)),
        "markdown": (markdown, lambda: to_markdown(result)),
        "gradescope": (gradescope, lambda: to_gradescope(result)),
        "junit": (junit, lambda: to_junit(result)),
    }
    step_summary = os.environ.get("GITHUB_STEP_SUMMARY")
    written: dict[str, Path] = {}
    for name, (path, render) in renderers.items():
        if path is None:
            continue
        append = name == "markdown" and step_summary and os.path.abspath(step_summary) == os.path.abspath(path)
        written[name] = (append_text if append else write_text)(path, render())
    return written
