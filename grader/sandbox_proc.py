"""Process-tree and pipe helpers shared by the grader side and the zygote.

Nothing here imports torch or student code; both the grading process
(:mod:`grader.sandbox`) and the zygote (:mod:`grader._zygote`) use it.

Contracts
---------
* :func:`descendants` walks the ``/proc/<pid>/stat`` parent links; it is a
  snapshot and may miss a process created while it runs, so callers that must
  leave nothing behind use :func:`kill_descendants`, which repeats until a walk
  finds no live descendant.
* Messages are framed as an 8-byte big-endian length followed by UTF-8 JSON.
  Every read takes an absolute ``time.monotonic()`` deadline (or ``None`` for
  "block forever", used only by the zygote's idle wait on its request pipe) and
  a size cap, and raises :class:`ChannelError` rather than hanging or
  allocating without bound.
"""

from __future__ import annotations

import json
import os
import select
import signal
import struct
import time

_HEADER = struct.Struct(">Q")


class ChannelError(Exception):
    """A framed message could not be read or written (EOF, deadline, garbage)."""


# --------------------------------------------------------------------------
# process tree


def _process_table() -> dict[int, tuple[int, str]]:
    """Return ``{pid: (ppid, state)}`` for every process visible in /proc."""
    table: dict[int, tuple[int, str]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:  # exited meanwhile
            continue
        # The command name may contain spaces and ')' -> parse after the last ')'.
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) >= 2:
            table[int(name)] = (int(fields[1]), fields[0].decode())
    return table


def descendants(root_pid: int, *, include_zombies: bool = False) -> list[int]:
    """Pids of all processes below ``root_pid`` (not including it), parents first."""
    children: dict[int, list[int]] = {}
    table = _process_table()
    for pid, (ppid, _state) in table.items():
        children.setdefault(ppid, []).append(pid)
    found: list[int] = []
    queue = list(children.get(root_pid, ()))
    while queue:
        pid = queue.pop(0)
        found.append(pid)
        queue.extend(children.get(pid, ()))
    if not include_zombies:
        found = [p for p in found if table.get(p, (0, "Z"))[1] not in ("Z", "X")]
    return found


def _signal_pid(pid: int, sig: int, allowed_parents: set[int]) -> None:
    """Send ``sig`` to ``pid`` unless it is gone or no longer in the tree.

    A pidfd pins the process, then its parent is re-checked, so a pid that was
    reaped and reused by an unrelated process between the /proc walk and the
    kill is not signalled.
    """
    try:
        pidfd = os.pidfd_open(pid)
    except (OSError, AttributeError):
        try:
            os.kill(pid, sig)
        except OSError:
            pass
        return
    try:
        with open(f"/proc/{pid}/stat", "rb") as fh:
            stat = fh.read()
        ppid = int(stat[stat.rfind(b")") + 2:].split()[1])
        if ppid in allowed_parents:
            signal.pidfd_send_signal(pidfd, sig)
    except (OSError, ValueError, IndexError):
        pass
    finally:
        os.close(pidfd)


def reap_children() -> None:
    """Reap every already-dead child of this process (never blocks)."""
    while True:
        try:
            pid, _status = os.waitpid(-1, os.WNOHANG)
        except ChildProcessError:
            return
        if pid == 0:
            return


def kill_descendants(root_pid: int, *, reap: bool, timeout: float = 10.0) -> bool:
    """SIGKILL every descendant of ``root_pid`` until none is left alive.

    ``reap`` must be true only when the caller *is* ``root_pid`` (the zygote,
    a child subreaper): orphans are reparented to it and it must reap them.
    Returns False if live descendants remained after ``timeout`` seconds
    (e.g. processes stuck in uninterruptible sleep).
    """
    deadline = time.monotonic() + timeout
    pause = 0.0005
    while True:
        if reap:
            reap_children()
        alive = descendants(root_pid)
        if not alive:
            return True
        if time.monotonic() > deadline:
            return False
        tree = {root_pid, *descendants(root_pid, include_zombies=True)}
        for pid in alive:
            _signal_pid(pid, signal.SIGKILL, tree)
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


# --------------------------------------------------------------------------
# framed JSON messages


def _wait_fd(fd: int, events: int, deadline: float | None) -> None:
    poller = select.poll()
    poller.register(fd, events)
    while True:
        wait_ms = None
        if deadline is not None:
            wait_ms = max(0, int((deadline - time.monotonic()) * 1000))
        if poller.poll(wait_ms):
            return
        if deadline is not None and time.monotonic() >= deadline:
            raise ChannelError("deadline passed")


def write_all(fd: int, data: bytes, deadline: float | None) -> None:
    """Write all of ``data`` to a (possibly non-blocking) fd before ``deadline``."""
    view = memoryview(data)
    while view:
        _wait_fd(fd, select.POLLOUT, deadline)
        try:
            written = os.write(fd, view)
        except BlockingIOError:
            continue
        except OSError as exc:
            raise ChannelError(f"write failed: {exc}") from exc
        view = view[written:]


def read_exact(fd: int, size: int, deadline: float | None) -> bytes:
    """Read exactly ``size`` bytes or raise :class:`ChannelError` (EOF/deadline)."""
    chunks = bytearray()
    while len(chunks) < size:
        _wait_fd(fd, select.POLLIN, deadline)
        try:
            chunk = os.read(fd, min(size - len(chunks), 1 << 20))
        except BlockingIOError:
            continue
        except OSError as exc:
            raise ChannelError(f"read failed: {exc}") from exc
        if not chunk:
            raise ChannelError("end of file")
        chunks += chunk
    return bytes(chunks)


def encode_frame(payload: bytes) -> bytes:
    return _HEADER.pack(len(payload)) + payload


def send_msg(fd: int, obj: object, deadline: float | None = None) -> None:
    """Send one JSON message (NaN/Infinity allowed, as Python's json does)."""
    write_all(fd, encode_frame(json.dumps(obj).encode()), deadline)


def recv_msg(fd: int, deadline: float | None, max_size: int) -> object:
    """Receive one JSON message; raises :class:`ChannelError` on any problem."""
    (size,) = _HEADER.unpack(read_exact(fd, _HEADER.size, deadline))
    if size > max_size:
        raise ChannelError(f"message of {size} bytes exceeds the {max_size}-byte cap")
    try:
        return json.loads(read_exact(fd, size, deadline))
    except ValueError as exc:
        raise ChannelError(f"not JSON: {exc}") from exc


def parse_frame(buf: bytes, max_size: int) -> object:
    """Decode one complete frame held in ``buf`` (trailing bytes are an error)."""
    if len(buf) < _HEADER.size:
        raise ChannelError(f"incomplete header ({len(buf)} bytes)")
    (size,) = _HEADER.unpack_from(buf)
    if size > max_size:
        raise ChannelError(f"declared size {size} exceeds the {max_size}-byte cap")
    if len(buf) != _HEADER.size + size:
        raise ChannelError(
            f"declared {size} bytes but {len(buf) - _HEADER.size} followed")
    try:
        return json.loads(buf[_HEADER.size:])
    except ValueError as exc:
        raise ChannelError(f"not JSON: {exc}") from exc


def describe_wait_status(status: int) -> str:
    """Human-readable form of a ``waitpid`` status, e.g. 'killed by signal 11 (SIGSEGV)'."""
    if os.WIFSIGNALED(status):
        sig = os.WTERMSIG(status)
        try:
            name = signal.Signals(sig).name
        except ValueError:
            name = "?"
        return f"killed by signal {sig} ({name})"
    if os.WIFEXITED(status):
        return f"exited with status {os.WEXITSTATUS(status)}"
    return f"wait status {status}"
