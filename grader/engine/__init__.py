"""The grading engine, a library: the runner, the pytest plugin, the preflight, the rubric, the result model, seeds,
provenance, the throughput figure (:mod:`~grader.engine.throughput`), the checks.

Imports run one way: commands -> tools -> writers -> engine -> sandbox ->
shared. The engine imports no writer and no command; the probes it asks for
are :mod:`grader.inside.probes`, named by string and run inside the jail.
"""
