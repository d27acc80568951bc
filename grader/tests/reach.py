"""Measure what a probe can reach in one sandbox configuration: ``python -m grader.tests.reach CONFIG ARGS-JSON``.

Run by test_levels.py on this machine and inside the simulated Gradescope
container (grader/tests/container.py). CONFIG is "jail" (namespaces where they
can be made, and the kernel's layers), "contained" (no namespaces, the
kernel's layers) or "weak" (neither). Prints one JSON object: the isolation
the sandbox reported, the grader's uid, and what the probe could do
(reach_probes.reach). Works with this repository's grader and, given
``--old``, with the grader of an earlier commit (whose Sandbox knew only
``jail="auto"|"off"``), for before-and-after tables.
"""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

PROBES = "grader.tests.reach_probes"


def main(argv: list[str]) -> int:
    config, args, old = argv[0], json.loads(argv[1]), "--old" in argv
    from grader.sandbox import Sandbox

    options = {"jail": "auto" if config == "jail" else "off"}
    if not old:
        options["kernel_layers"] = config != "weak"
    with tempfile.TemporaryDirectory() as student:
        Path(student, "collate.py").write_text("")
        with Sandbox(student, probe_modules=(PROBES,), **options) as box:
            result = box.run(f"{PROBES}:reach", dict(args, grader_pid=os.getpid()), timeout=30)
            isolation = box.isolation.to_dict() if hasattr(box.isolation, "to_dict") else vars(box.isolation)
    print(json.dumps({"isolation": isolation, "grader uid": os.getuid(), "probe": result.data,
                      "error": result.error}))
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
