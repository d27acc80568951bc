"""The instructor's tools: stubs, release, publish, host bundles, intake, batch and merge, review, regrade, canvas,
bench (and the throughput figure's noise, :mod:`~grader.tools.throughput_noise`), scoreboard, corpus, checks of
the lab's files.

Their command lines are in :mod:`grader.commands`. They are left out of the
published grader (``python -m grader publish``), which the students'
workflows and the hosts run.
"""
