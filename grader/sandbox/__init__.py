"""The host side of the sandbox: build the jail, start the zygote in it, talk to it.

Parts (one job each):

* :mod:`~grader.sandbox.host`: :class:`Sandbox`, the grading process's side;
* :mod:`~grader.sandbox.jail`: the bubblewrap command line, and whether a jail can be made;
* :mod:`~grader.sandbox.identity`: the private uid a probe runs as;
* :mod:`~grader.sandbox.files`: what was submitted (copying it) and the grader code staged into the jail.

What runs inside the jail is :mod:`grader.inside` (the zygote, the probe
child, the kernel's layers, the probes); what both sides use is
:mod:`grader.shared` (the messages, their framing, process trees). Only those
two packages are staged into the jail; nothing here imports :mod:`grader.inside`
(grader/tests/test_house.py).

The names below are imported on first use.
"""

import importlib

_EXPORTS = {
    "NOGROUP": "grader.sandbox.identity", "PRIVATE_UIDS": "grader.sandbox.identity", "Sandbox": "grader.sandbox.host",
    "SandboxError": "grader.sandbox.host", "Availability": "grader.sandbox.jail", "Flag": "grader.shared.messages",
    "ProbeResult": "grader.shared.messages",
}
__all__ = sorted(_EXPORTS)


def __getattr__(name):
    if name not in _EXPORTS:
        raise AttributeError(f"module 'grader.sandbox' has no attribute {name!r}")
    return getattr(importlib.import_module(_EXPORTS[name]), name)
