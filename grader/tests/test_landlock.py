"""The Landlock layer (grader/inside/landlock.py): what a restricted process can no longer do.

Each test restricts a freshly forked child (a domain can never be left) and
checks, where it can, the same action before the restriction (the control),
so that a refusal is Landlock's and not the machine's.  Skipped where the
kernel has no Landlock, or too old an ABI for the feature.
"""

from __future__ import annotations

import ctypes
import errno
import os
import signal
import socket
import subprocess
import threading

import pytest

from grader.inside import landlock
from grader.sandbox.jail import interpreter_paths
from grader.shared import kernel
from grader.tests.layers_support import SYSTEM, in_child

ABI = landlock.abi()
needs_landlock = pytest.mark.skipif(ABI < 1, reason="no Landlock on this kernel")
needs_net = pytest.mark.skipif(ABI < 4, reason=f"Landlock ABI {ABI} has no TCP rules (4+)")
CAP_SYS_ADMIN, CAP_PERFMON = 21, 38
needs_scopes = pytest.mark.skipif(ABI < 6, reason=f"Landlock ABI {ABI} has no scoping (6+)")


def _errno_of(action) -> str:
    """"ok", or the errno name an action failed with."""
    try:
        action()
        return "ok"
    except OSError as exc:
        return errno.errorcode.get(exc.errno, str(exc.errno))


def _restrict(tmp_path, extra_exec=(), **options) -> landlock.Status:
    status = landlock.restrict(read_exec=[*SYSTEM, *interpreter_paths(), *extra_exec], read_only=[tmp_path / "ro", "/proc"],
                               read_write=[tmp_path / "rw", "/dev/null"], **options)
    assert status.applied, status
    return status


@pytest.fixture
def folders(tmp_path):
    for name in ("ro", "rw", "outside"):
        (tmp_path / name).mkdir()
        (tmp_path / name / "file.txt").write_text(name)
    return tmp_path


def test_unavailable_is_a_status_not_an_error(monkeypatch):
    for err, words in ((errno.ENOSYS, "no Landlock"), (errno.EOPNOTSUPP, "disabled at boot"), (errno.EPERM, "refused")):
        monkeypatch.setattr(landlock, "_syscall", lambda *args, err=err: -err)
        monkeypatch.setattr(kernel, "syscall", lambda *args, err=err: -err)  # the ABI probe both sides ask
        status = landlock.restrict(read_only=["/usr"])
        assert (landlock.abi(), status.applied, status.abi) == (0, False, 0)
        assert words in status.reason
        assert status.to_dict()["applied"] is False


@needs_landlock
def test_status_names_every_right_of_the_abi(folders):
    status = in_child(lambda: _restrict(folders, extra_exec=["/no/such/path"]).to_dict())
    assert status["abi"] == ABI and status["applied"]
    assert len(status["fs_rights"]) == 13 + (ABI >= 2) + (ABI >= 3) + (ABI >= 5)
    assert status["net"] == (ABI >= 4)
    assert status["scopes"] == (["ABSTRACT_UNIX_SOCKET", "SIGNAL"] if ABI >= 6 else [])
    assert any(p.startswith("/no/such/path") for p in status["skipped_paths"])


@needs_landlock
def test_files_only_as_granted(folders):
    def attempt():
        _restrict(folders)
        ro, rw, out = folders / "ro", folders / "rw", folders / "outside"
        script = rw / "run.sh"
        results = {
            "read outside": _errno_of(lambda: open(out / "file.txt").read()),
            "list outside": _errno_of(lambda: os.listdir(out)),
            "read ro": _errno_of(lambda: open(ro / "file.txt").read()),
            "write ro": _errno_of(lambda: open(ro / "file.txt", "a").write("x")),
            "create in ro": _errno_of(lambda: os.mkdir(ro / "new")),
            "remove in ro": _errno_of(lambda: os.unlink(ro / "file.txt")),
            "write rw": _errno_of(lambda: (rw / "new.txt").write_text("x")),
            "rename in rw": _errno_of(lambda: os.rename(rw / "new.txt", rw / "renamed.txt")),
            "truncate rw": _errno_of(lambda: os.truncate(rw / "renamed.txt", 0)),
            "write /dev/null": _errno_of(lambda: open("/dev/null", "w").write("x")),
            "read /dev/zero": _errno_of(lambda: open("/dev/zero", "rb").read(1)),
            "exec /bin/true": _errno_of(lambda: subprocess.run(["/bin/true"], check=True)),
        }
        script.write_text("#!/bin/sh\nexit 0\n")
        script.chmod(0o755)
        results["exec from rw"] = _errno_of(lambda: subprocess.run([str(script)], check=True))
        cat = subprocess.run(["/bin/cat", str(out / "file.txt")], capture_output=True, text=True)
        results["after execve"] = "EACCES" if "Permission denied" in cat.stderr else f"{cat.returncode} {cat.stderr}"
        pid = os.fork()
        if pid == 0:
            os._exit(0 if _errno_of(lambda: open(out / "file.txt").read()) == "EACCES" else 1)
        results["after fork"] = "EACCES" if os.waitstatus_to_exitcode(os.waitpid(pid, 0)[1]) == 0 else "read"
        return results

    assert in_child(attempt) == {
        "read outside": "EACCES", "list outside": "EACCES", "read ro": "ok", "write ro": "EACCES", "create in ro": "EACCES",
        "remove in ro": "EACCES", "write rw": "ok", "rename in rw": "ok", "truncate rw": "ok", "write /dev/null": "ok",
        "read /dev/zero": "EACCES", "exec /bin/true": "ok", "exec from rw": "EACCES",
        "after execve": "EACCES", "after fork": "EACCES"}


@needs_net
def test_tcp_connect_and_bind_are_refused(folders):
    with socket.create_server(("127.0.0.1", 0)) as listener:
        address = listener.getsockname()

        def attempt():
            before = _errno_of(lambda: socket.create_connection(address, timeout=5).close())
            _restrict(folders)
            after = _errno_of(lambda: socket.create_connection(address, timeout=5).close())
            bind = _errno_of(lambda: socket.socket().bind(("127.0.0.1", 0)))
            return before, after, bind

        assert in_child(attempt) == ["ok", "EACCES", "EACCES"]


@needs_scopes
def test_signals_reach_only_the_domain(folders):
    def attempt():
        parent = os.getppid()
        before = _errno_of(lambda: os.kill(parent, 0))
        _restrict(folders)
        after = _errno_of(lambda: os.kill(parent, 0))
        child = os.fork()
        if child == 0:
            signal.pause()
            os._exit(0)
        own = _errno_of(lambda: os.kill(child, signal.SIGTERM))
        _pid, status = os.waitpid(child, 0)
        return before, after, own, os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGTERM

    assert in_child(attempt) == ["ok", "EPERM", "ok", True]


@needs_scopes
def test_abstract_unix_sockets_made_outside_are_out_of_reach(folders):
    name = f"\0grader-landlock-test-{os.getpid()}"
    with socket.socket(socket.AF_UNIX) as listener:
        listener.bind(name)
        listener.listen()

        def attempt():
            connect = lambda address: socket.socket(socket.AF_UNIX).connect(address)  # noqa: E731
            before = _errno_of(lambda: connect(name))
            _restrict(folders)
            after = _errno_of(lambda: connect(name))
            own = socket.socket(socket.AF_UNIX)
            own.bind(name + "-inside")
            own.listen()
            return before, after, _errno_of(lambda: connect(name + "-inside"))

        assert in_child(attempt) == ["ok", "EPERM", "ok"]


def _drop_capabilities(*bits: int) -> None:
    """Remove capabilities from this process's effective and permitted sets (it stays root)."""
    libc = ctypes.CDLL(None, use_errno=True)
    header, data = (ctypes.c_uint32 * 2)(0x20080522, 0), (ctypes.c_uint32 * 6)()  # _LINUX_CAPABILITY_VERSION_3
    assert libc.capget(header, data) == 0
    for bit in bits:
        data[bit // 32 * 3] &= ~(1 << bit % 32)
        data[bit // 32 * 3 + 1] &= ~(1 << bit % 32)
    assert libc.capset(header, data) == 0, os.strerror(ctypes.get_errno())


@needs_landlock
def test_processes_outside_cannot_be_read_through_proc(folders):
    """Landlock's ptrace rule closes another process's memory, environment and maps, but not against every capability.

    Measured on Linux 6.18: a process holding CAP_PERFMON or CAP_SYS_ADMIN still reads ``environ``, ``maps``
    and ``auxv`` (not ``mem``) of processes outside its domain.  Probes hold no capability, and Docker's set
    has neither, so the child drops those two first, as root, keeping CAP_SYS_PTRACE: the control read
    before the restriction then succeeds, and only Landlock stands in the way.
    """
    def attempt():
        parent = os.getppid()
        _drop_capabilities(CAP_SYS_ADMIN, CAP_PERFMON)
        before = [_errno_of(lambda: open(f"/proc/{parent}/{name}", "rb").read()) for name in ("environ", "maps")]
        _restrict(folders)
        return {"before": before,
                **{f"parent {name}": _errno_of(lambda: open(f"/proc/{parent}/{name}", "rb").read(1)) for name in ("environ", "maps", "mem")},
                "self environ": _errno_of(lambda: open("/proc/self/environ", "rb").read()),
                "self status": _errno_of(lambda: open("/proc/self/status").read())}

    if os.geteuid() != 0:
        pytest.skip("drops capabilities as root")
    assert in_child(attempt) == {"before": ["ok", "ok"], "parent environ": "EACCES", "parent maps": "EACCES",
                                 "parent mem": "EACCES", "self environ": "ok", "self status": "ok"}


@pytest.mark.skipif(not 1 <= ABI < 8, reason="needs Landlock without TSYNC (ABI 1-7)")
def test_other_threads_are_refused_unless_allowed(folders):
    def attempt():
        stop = threading.Event()
        threading.Thread(target=stop.wait, daemon=True).start()
        refused = landlock.restrict(read_only=["/usr"])
        allowed = _restrict(folders, allow_threads=True)
        stop.set()
        return refused.applied, refused.reason, allowed.applied

    applied, reason, allowed = in_child(attempt)
    assert (applied, allowed) == (False, True)
    assert "threads" in reason
