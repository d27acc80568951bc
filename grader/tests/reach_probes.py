"""A probe that tries, from inside the sandbox, each thing a hostile submission wants (test_levels.py runs it).

Each attempt answers "open" (it worked) or the errno name that stopped it. The
probe is the grader's own code, so it runs with exactly what a student's code
would have at that point (the same process, uid, Landlock domain and filter).
"""

from __future__ import annotations

import errno
import os
import signal
import socket


def _attempt(action) -> str:
    try:
        action()
    except OSError as exc:
        return errno.errorcode.get(exc.errno, type(exc).__name__)
    return "open"


def _read(path: str) -> None:
    with open(path, "rb") as fh:
        if not fh.read(1):
            raise OSError(errno.ENODATA, "empty")


def _read_canary(pid: int, canary: str) -> None:
    with open(f"/proc/{pid}/environ", "rb") as fh:
        if canary.encode() not in fh.read():
            raise OSError(errno.ENOENT, "no canary")


def _write_into(folder: str) -> None:
    with open(os.path.join(folder, "written-by-a-probe.txt"), "w") as fh:
        fh.write("x")


def _tcp(port: int) -> None:
    with socket.create_connection(("127.0.0.1", port), timeout=2) as conn:
        conn.sendall(b"from the probe")


def _udp(port: int) -> None:
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as sock:
        sock.sendto(b"from the probe", ("127.0.0.1", port))


def _unix(path: str) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as sock:
        sock.settimeout(2)
        sock.connect(path)
        sock.sendall(b"from the probe")


def reach(solutions_file: str, grader_pid: int, canary: str, results_dir: str, tcp_port: int, udp_port: int,
          unix_socket: str = "") -> dict:
    """What this probe could do: read solutions/, another process's environment, write the results folder,
    signal the grader, connect out over TCP and UDP, connect to a root-owned 0600 Unix socket outside its scratch
    (a docker.sock, say); and the uid it runs as."""
    return {
        **({"connect to a Unix socket outside scratch": _attempt(lambda: _unix(unix_socket))} if unix_socket else {}),
        "uid": os.getuid(),
        "read solutions/": _attempt(lambda: _read(solutions_file)),
        "read the grader's environment": _attempt(lambda: _read_canary(grader_pid, canary)),
        "write the results folder": _attempt(lambda: _write_into(results_dir)),
        "signal the grader": _attempt(lambda: os.kill(grader_pid, signal.SIGCONT)),
        "connect out over TCP": _attempt(lambda: _tcp(tcp_port)),
        "send over UDP": _attempt(lambda: _udp(udp_port)),
    }
