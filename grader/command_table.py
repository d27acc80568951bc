"""Which commands ``python -m grader`` offers, and which module holds each front end.

Two tables: the published grader's commands (what the students' workflows and
the hosts run; ``publish`` carries only their modules of grader/commands/, and
the grader's identity hash covers only them) and the instructor's, offered
where the instructor's tools are (this repository). Only :mod:`grader.cli`
loads the modules; this file names them and imports nothing, so the engine
can read the published table without depending on the front door.
"""

from __future__ import annotations

#: command -> module: what the published grader offers, in the order ``--help`` lists them.
PUBLISHED_COMMANDS = {
    "grade": "grader.commands.grade",
    "verdict": "grader.commands.verdict",
}
#: command -> module: the instructor's commands, offered where grader/tools/ is.
INSTRUCTOR_COMMANDS = {
    "generate": "grader.commands.generate",
    "release": "grader.commands.release",
    "publish": "grader.commands.publish",
    "classroom50": "grader.commands.classroom50",
    "gradescope": "grader.commands.gradescope",
    "simulate": "grader.commands.simulate",
    "record-submissions": "grader.commands.record_submissions",
    "batch": "grader.commands.batch",
    "merge": "grader.commands.merge",
    "dry-run": "grader.commands.dry_run",
    "review": "grader.commands.review",
    "regrade": "grader.commands.regrade",
    "grade-commit": "grader.commands.grade_commit",
    "bench": "grader.commands.bench",
    "scoreboard": "grader.commands.scoreboard",
    "contract": "grader.commands.contract",
    "handout": "grader.commands.handout",
    "docs": "grader.commands.docs",
    "check": "grader.commands.check",
    "verify": "grader.commands.verify",
    "explain": "grader.commands.explain",
}

