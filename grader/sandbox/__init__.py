"""Run untrusted student code in jailed child processes and get back plain data.

Parts (one job each):

* :mod:`~grader.sandbox.host`: :class:`Sandbox`, the grading process's side;
* :mod:`~grader.sandbox.jail`: the bubblewrap command line, and whether a jail can be made;
* :mod:`~grader.sandbox.identity`: the private uid a probe runs as;
* :mod:`~grader.sandbox.zygote`: inside the jail, forks one child per probe, which
  :mod:`~grader.sandbox.lockdown` locks down (limits, environment, identity);
* :mod:`~grader.sandbox.child`: inside a probe child, imports the submission and runs the probe;
* :mod:`~grader.sandbox.integrity`, :mod:`~grader.sandbox.encode`: what the child watches and how it answers;
* :mod:`~grader.sandbox.messages`, :mod:`~grader.sandbox.channel`: the typed messages and their framing;
* :mod:`~grader.sandbox.proctree`, :mod:`~grader.sandbox.files`: process trees and file work.

The names below are imported on first use, so that the jail, which imports
only the zygote's and the child's modules, never loads the grading side.
"""

import importlib

_EXPORTS = {
    "NOGROUP": "identity", "PRIVATE_UIDS": "identity", "Sandbox": "host",
    "SandboxError": "host", "Availability": "jail", "Flag": "messages",
    "ProbeResult": "messages", "load_submission": "child",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'grader.sandbox' has no attribute {name!r}")
    return getattr(importlib.import_module(f"grader.sandbox.{_EXPORTS[name]}"), name)
