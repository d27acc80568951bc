"""The push GitHub recorded before the deadline moved main to a commit the server no longer has."""

import tempfile
from pathlib import Path

from grader.tests.gitrepos import Repository


def build(repo, ctx):
    with tempfile.TemporaryDirectory() as elsewhere:
        gone = Repository(Path(elsewhere) / "gone.git").commit(ctx.reference(), date=ctx.at(-5))
    ctx.push(gone, -5)
    ctx.push(repo.commit(ctx.stubs(), message="history rewritten", date=ctx.at(1)), 1, kind="force_push")
