"""The grading engine: the runner, the rubric, the result model, seeds, provenance, the checks and the probes.

Imports run one way: tools -> engine -> sandbox; the writers depend only on
the result model. This file imports nothing: the probes are staged into the
sandbox's jail with it.
"""
