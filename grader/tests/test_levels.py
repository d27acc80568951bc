"""What a probe can do at each isolation level, measured from inside the sandbox (grader/isolation.py's levels).

One probe (reach_probes.reach) tries to read solutions/, read the grader's
environment, write into a report folder, signal the grader, and reach a
listener on the host's loopback over TCP and UDP, and connect to a root-owned
0600 Unix socket outside its scratch (a docker.sock, say: issue 31). It runs:

* on this machine, in the jail (namespaces and the kernel's layers): nothing works;
* in the simulated Gradescope container (root with Docker's capabilities, no
  namespaces: grader/tests/container.py) with the kernel's layers
  ("contained"): nothing works either, and the probe runs under a uid of its own;
* on this machine without namespaces ("contained"; the interpreter under root's
  0700 home): the probes' uid is given search of that folder alone, so it
  engages and the Unix socket stays closed (Landlock ABI 7 has no rule for
  connecting to a path socket, and seccomp cannot read the path connect() is
  given: the uid is what closes it);
* in the same container without them ("weak"): the private uid still closes the
  grader's environment, the report folder and signals to the grader;
  world-readable files (solutions/, where it is on the machine) and the
  network stay open. That is what grader/docs/grading.md says of "weak".
"""

from __future__ import annotations

import json
import os
import shutil
import socket
import subprocess
import sys
import tempfile
import threading

import pytest

from grader.paths import REPO
from grader.sandbox.expected import expected_isolation
from grader.tests import container

CANARY = "GRADER_REACH_CANARY"
CLOSED = {"read solutions/", "read the grader's environment", "write the results folder", "signal the grader",
          "connect out over TCP", "send over UDP", "connect to a Unix socket outside scratch"}
pytestmark = pytest.mark.slow


class Listeners:
    """A TCP and a UDP socket on the host's 127.0.0.1 that record whatever reaches them."""

    def __init__(self):
        self.tcp = socket.create_server(("127.0.0.1", 0))
        self.udp = socket.socket(socket.AF_INET, socket.SOCK_DGRAM)
        self.udp.bind(("127.0.0.1", 0))
        self.unix_dir = tempfile.mkdtemp(prefix="grader-reach-", dir="/tmp")
        os.chmod(self.unix_dir, 0o755)  # any uid may look for the socket: only its own mode (0600, root's) refuses
        self.unix_path = os.path.join(self.unix_dir, "daemon.sock")
        self.unix = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.unix.bind(self.unix_path)
        os.chmod(self.unix_path, 0o600)
        self.unix.listen()
        self.unix.settimeout(0.2)
        self.received: list[bytes] = []
        self.tcp.settimeout(0.2)
        self.udp.settimeout(0.2)
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.tcp.accept()
                with conn:
                    self.received.append(conn.recv(100))
            except OSError:
                pass
            try:
                self.received.append(self.udp.recv(100))
            except OSError:
                pass
            try:
                conn, _ = self.unix.accept()
                with conn:
                    self.received.append(conn.recv(100))
            except OSError:
                pass

    def close(self):
        self.stop.set()
        self.thread.join()
        self.tcp.close()
        self.udp.close()
        self.unix.close()
        shutil.rmtree(self.unix_dir, ignore_errors=True)


@pytest.fixture
def listeners():
    found = Listeners()
    yield found
    found.close()


def _measure(config: str, listeners: Listeners, results, where: str) -> dict:
    args = {"solutions_file": str(REPO / "solutions" / "seeding.py"), "canary": f"{CANARY}=",
            "results_dir": str(results), "tcp_port": listeners.tcp.getsockname()[1],
            "udp_port": listeners.udp.getsockname()[1], "unix_socket": listeners.unix_path}
    argv = [sys.executable, "-m", "grader.tests.reach", config, json.dumps(args)]
    if where == "host":
        done = subprocess.run(argv, cwd=REPO, env=dict(os.environ, **{CANARY: "s3cret"}), capture_output=True,
                              text=True, timeout=120)
    else:
        done = container.run_in_container(argv, source=REPO, submission=results, results=results,
                                          extra_ro_binds=[REPO, listeners.unix_dir], extra_rw_binds=[results], timeout=120,
                                          env=dict(container.CONTAINER_ENV, PYTHONPATH=str(REPO), **{CANARY: "s3cret"}))
    assert done.returncode == 0, done.stderr[-3000:]
    return json.loads(done.stdout.strip().splitlines()[-1])


@pytest.fixture
def results(tmp_path):
    folder = tmp_path / "results"
    folder.mkdir(mode=0o755)
    return folder


@pytest.mark.timeout(300)
def test_in_the_jail_a_probe_reaches_nothing(listeners, results):
    if not expected_isolation().level == "jail":
        pytest.skip(f"no jail here: {expected_isolation().reason}")
    seen = _measure("jail", listeners, results, "host")
    assert seen["isolation"]["level"] == "jail", seen
    assert {what for what, outcome in seen["probe"].items() if outcome == "open"} == set(), seen["probe"]
    assert listeners.received == [] and not (results / "written-by-a-probe.txt").exists()


@pytest.mark.timeout(300)
def test_in_gradescopes_container_contained_closes_everything_and_weak_keeps_the_private_uid(listeners, results):
    if why := container.available():
        pytest.skip(f"simulating Gradescope's container: {why}")
    contained = _measure("contained", listeners, results, "container")
    assert contained["isolation"]["level"] == "contained", contained["isolation"]
    assert "uid" in contained["isolation"]["layers"], contained["isolation"]
    assert contained["probe"]["uid"] != contained["grader uid"] == 0
    assert {what for what, outcome in contained["probe"].items() if outcome == "open"} == set(), contained["probe"]
    assert listeners.received == []

    weak = _measure("weak", listeners, results, "container")
    assert weak["isolation"]["level"] == "weak" and "uid" in weak["isolation"]["layers"], weak["isolation"]
    assert weak["probe"]["uid"] != weak["grader uid"] == 0, "the uid fallback: probes never run as root"
    still_open = {what for what, outcome in weak["probe"].items() if outcome == "open"}
    assert still_open == {"read solutions/", "connect out over TCP", "send over UDP"}, weak["probe"]
    assert not (results / "written-by-a-probe.txt").exists()


@pytest.mark.timeout(300)
def test_without_namespaces_on_this_machine_a_probe_reaches_no_unix_socket(listeners, results):
    """The third red team's host: no namespaces (jail off), root, the interpreter under a folder others cannot
    search. The probes' uid is given search of that folder alone, so it engages: the root-owned socket is closed,
    and so is everything else."""
    seen = _measure("contained", listeners, results, "host")
    if seen["isolation"]["level"] != "contained" or seen["grader uid"] != 0:
        pytest.skip(f"needs root and the kernel's layers: {seen['isolation']['reason']}")
    assert "uid" in seen["isolation"]["layers"], seen["isolation"]
    assert seen["probe"]["uid"] != 0
    assert {what for what, outcome in seen["probe"].items() if outcome == "open"} == set(), seen["probe"]
    assert listeners.received == []
    if ROOT_MODE is not None:  # the ACL entry is gone with the grading, and /root's mode is as it was
        assert os.stat("/root").st_mode == ROOT_MODE and "system.posix_acl_access" not in os.listxattr("/root")


ROOT_MODE = os.stat("/root").st_mode if os.path.isdir("/root") else None
