"""The simulation of Gradescope's container (grader/tests/container.py): it is what Docker gives, measured.

One probe run (container_probe.py) per container, shared by the tests of a
module; each test checks one promise of the simulation.  Skipped without
root, bubblewrap or setpriv.
"""

from __future__ import annotations

import socket
import sys

import pytest

from grader.paths import REPO
from grader.tests import container

WHY_NOT = container.available()
pytestmark = pytest.mark.skipif(WHY_NOT is not None, reason=WHY_NOT or "")
CAP_SYS_ADMIN = 21
NAMESPACE_COMMANDS = ("unshare -U", "bwrap --unshare-user", "bwrap --unshare-user --unshare-pid", "bwrap --unshare-net",
                      "bwrap (mount namespace only)")


@pytest.fixture(scope="module")
def inside():
    """What a process sees in the simulated container, with a TCP listener waiting on the host's loopback."""
    with socket.create_server(("127.0.0.1", 0)) as listener:
        return container.probe_container(tcp_port=listener.getsockname()[1])


@pytest.fixture(scope="module")
def setpriv_alone():
    """The same, with Docker's capabilities but without the seccomp filter."""
    return container.probe_container(policy=None)


def test_root_with_dockers_capabilities_only(inside):
    assert (inside["uid"], inside["euid"]) == (0, 0)
    caps = inside["caps"]
    assert caps["CapEff"] == caps["CapPrm"] == caps["CapBnd"] == container.DOCKER_CAP_MASK
    assert caps["CapInh"] == caps["CapAmb"] == 0
    assert not caps["CapEff"] >> CAP_SYS_ADMIN & 1


def test_no_namespace_can_be_made(inside):
    for name in NAMESPACE_COMMANDS:
        assert inside["commands"][name]["rc"] != 0, (name, inside["commands"][name])
    assert inside["unshare(CLONE_NEWUSER)"] == "EPERM"
    assert inside["clone3"] == "ENOSYS"  # as Docker answers, so that glibc falls back to clone
    assert inside["seccomp"] == "2"  # a filter holds


def test_setpriv_alone_would_not_be_docker(setpriv_alone, inside):
    """Without the filter, root without CAP_SYS_ADMIN still makes user namespaces: the filter is what closes them."""
    assert setpriv_alone["caps"] == inside["caps"]
    made = {name: setpriv_alone["commands"][name]["rc"] == 0 for name in NAMESPACE_COMMANDS}
    assert made == {"unshare -U": True, "bwrap --unshare-user": True, "bwrap --unshare-user --unshare-pid": True,
                    "bwrap --unshare-net": False, "bwrap (mount namespace only)": False}
    assert setpriv_alone["unshare(CLONE_NEWUSER)"] == "ok"


def test_network_is_open_as_on_gradescope(inside):
    assert inside["tcp connect"] == "ok"


def test_own_pid_namespace(inside):
    assert inside["processes"] == [1, inside["pid"]]  # bwrap's init and the probe: nothing of the host


def test_folder_layout(inside):
    assert (inside["write results"], inside["write submission"], inside["write /tmp"]) == ("ok", "ok", "ok")
    assert (inside["read source"], inside["write source"]) == ("ok", "EROFS")
    assert inside["results on the host"] == ["probe.txt"]


def test_a_private_uid_can_run_the_interpreter(inside):
    run = inside["commands"]["private uid runs python"]
    assert (run["rc"], run["stdout"]) == (0, "1234567")


def test_known_difference_no_new_privs_is_set(inside):
    """bubblewrap always sets no_new_privs, Docker never: the simulation cannot catch code that forgets to set it."""
    assert inside["no_new_privs"] == "1"


def test_grader_expects_contained_isolation(tmp_path):
    """In the container, bwrap cannot make namespaces; Landlock and seccomp still can be had: "contained"."""
    (tmp_path / "submission").mkdir()
    (tmp_path / "results").mkdir()
    code = "from grader.sandbox.expected import expected_isolation; print(expected_isolation().to_dict())"
    proc = container.run_in_container([sys.executable, "-c", code], source=REPO, submission=tmp_path / "submission",
                                      results=tmp_path / "results",
                                      env=dict(container.CONTAINER_ENV, PYTHONPATH=f"{container.AUTOGRADER}/source"))
    assert proc.returncode == 0, proc.stderr[-2000:]
    assert "'level': 'contained'" in proc.stdout and "cannot make namespaces" in proc.stdout, proc.stdout
