"""What both sides of the jail use: the protocol and a few common names.

* :mod:`~grader.shared.messages`, :mod:`~grader.shared.channel`: the typed messages and their framing;
* :mod:`~grader.shared.proctree`: process trees (find, kill, describe a wait status);
* :mod:`~grader.shared.common`: the names both sides agree on, and removing a folder tree;
* :mod:`~grader.shared.kernel`: what the kernel offers the sandbox's layers;
* :mod:`~grader.shared.token_data`: the token files the tokens probes and checks both build;
* :mod:`~grader.shared.throughput`: the windows and sums the throughput probes report and the engine checks.

Imports nothing of the grader outside this package.
"""
