"""The simulated Gradescope container, for the suite: the simulation itself (grader/tools/delivery/gradescope_container.py, which
``python -m grader simulate gradescope`` runs too) and :func:`probe_container`, which measures what a process sees in it."""

from __future__ import annotations

import json
import os
import sys
import tempfile
from pathlib import Path

from grader.tools.delivery.gradescope_container import (  # noqa: F401  (the suite's tests use them as container.X)
    AUTOGRADER,
    CONTAINER_ENV,
    DOCKER_CAP_MASK,
    DOCKER_CAPABILITIES,
    SHM_SIZE,
    SIM_DIR,
    available,
    bwrap_argv,
    container_argv,
    launcher_argv,
    run_in_container,
)


def probe_container(*, policy: str | None = "docker", tcp_port: int | None = None, timeout: float = 60) -> dict:
    """What a process sees inside a fresh simulated container (uid, capabilities, namespaces, layout, network).

    ``tcp_port``: a listener on the host's 127.0.0.1 to connect to.  Raises RuntimeError if the probe failed.
    """
    with tempfile.TemporaryDirectory(prefix="container-") as base:
        folders = {name: Path(base, name) for name in ("source", "submission", "results")}
        for folder in folders.values():
            folder.mkdir()
        (folders["source"] / "setup.sh").write_text("true\n")
        script = Path(__file__).with_name("container_probe.py").read_text()
        proc = run_in_container([sys.executable, "-I", "-c", script, str(tcp_port or 0)], timeout=timeout, policy=policy,
                                **{name: str(path) for name, path in folders.items()})
        if proc.returncode != 0:
            raise RuntimeError(f"the container probe failed ({proc.returncode}): {proc.stderr[-2000:]}")
        facts = json.loads(proc.stdout)
        facts["results on the host"] = sorted(os.listdir(folders["results"]))
        return facts
