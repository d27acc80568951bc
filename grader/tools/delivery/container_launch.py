"""The simulated container's launcher: Docker's seccomp namespace rules, then Docker's capabilities, then the command.

Runs inside bubblewrap (see :mod:`grader.tools.delivery.gradescope_container`), as root with every
capability, from :data:`grader.tools.delivery.gradescope_container.SIM_DIR`, where it sits beside
a read-only copy of ``grader/inside/seccomp.py``; it imports nothing else
(``python -I -S``)::

    container_launch.py POLICY BOUNDING SETPRIV -- COMMAND...

1. POLICY "docker": install the filter now, while CAP_SYS_ADMIN is still held
   (Docker installs its profile without no_new_privs); "none": no filter.
   A filter that cannot be installed ends the launch (exit status 125), so a
   test never runs in a container weaker than it thinks.
2. Execute ``SETPRIV --bounding-set=BOUNDING --inh-caps=-all --ambient-caps=-all
   -- COMMAND...``: root's capabilities after that exec are the bounding set.
"""

from __future__ import annotations

import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

import seccomp  # noqa: E402  (the copy beside this file, not the grader package)


def main(argv: list[str]) -> int:
    policy, bounding, setpriv, separator, *command = argv
    if separator != "--" or not command:
        print("usage: container_launch.py POLICY BOUNDING SETPRIV -- COMMAND...", file=sys.stderr)
        return 2
    if policy != "none":
        status = seccomp.install(policy)
        if not status.applied:
            print(f"container launcher: seccomp policy {policy!r} not applied: {status.reason}", file=sys.stderr)
            return 125
    sys.stdout.flush()
    os.execv(setpriv, [setpriv, f"--bounding-set={bounding}", "--inh-caps=-all", "--ambient-caps=-all", "--", *command])
    return 127  # not reached


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
