"""The instructor's tools: stubs, release, publish, host bundles, batch, merge, review, regrade, canvas, bench, scoreboard, corpus.

They are left out of the published grader (``python -m grader publish``),
which the students' workflows and the hosts run: only the engine, the
sandbox and the writers go there.
"""
