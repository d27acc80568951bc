"""Process trees: list and kill every descendant of a process.

Used by the grading process (to check that nothing is left) and by the zygote
(a child subreaper, which kills everything below it after each probe).
:func:`descendants` walks the ``/proc/<pid>/stat`` parent links; it is a
snapshot and may miss a process created while it runs, so
:func:`kill_descendants` repeats until a walk finds no live descendant.
"""

from __future__ import annotations

import os
import signal
import time


def _process_table() -> dict[int, tuple[int, str]]:
    """``{pid: (ppid, state)}`` for every process visible in /proc."""
    table: dict[int, tuple[int, str]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as fh:
                stat = fh.read()
        except OSError:  # exited meanwhile
            continue
        # The command name may contain spaces and ')': parse after the last ')'.
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

    A pidfd pins the process, then its parent is checked again, so a pid that
    was reaped and reused between the /proc walk and the kill is spared.
    """
    try:
        pidfd = os.pidfd_open(pid)
    except OSError:
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


def kill_descendants(root_pid: int, *, reap: bool, timeout: float = 10.0, spare: int | None = None) -> bool:
    """SIGKILL every descendant of ``root_pid`` until none is left alive.

    ``reap`` must be true only when the caller *is* ``root_pid`` (the zygote,
    a child subreaper): orphans are reparented to it and it must reap them.
    ``spare`` is one descendant to leave alive (its own descendants are
    killed). Returns False if live descendants remained after ``timeout``
    seconds (e.g. processes stuck in uninterruptible sleep).
    """
    deadline = time.monotonic() + timeout
    pause = 0.0005
    while True:
        if reap:
            reap_children()
        alive = [pid for pid in descendants(root_pid) if pid != spare]
        if not alive:
            return True
        if time.monotonic() > deadline:
            return False
        tree = {root_pid, *descendants(root_pid, include_zombies=True)}
        for pid in alive:
            _signal_pid(pid, signal.SIGKILL, tree)
        time.sleep(pause)
        pause = min(pause * 2, 0.05)


def describe_wait_status(status: int) -> str:
    """A ``waitpid`` status in words, e.g. 'killed by signal 11 (SIGSEGV)'."""
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
