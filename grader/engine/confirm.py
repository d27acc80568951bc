"""Which verdicts the machine's load could have caused, and how a check's run is told apart from its neighbours'.

grader/docs/DESIGN.md principle 5: a verdict that the machine's load can cause is
confirmed alone, with nothing else of the grader running, before it counts.
This module decides which checks need that (:func:`needs_confirmation`) and
measures, per check, whether the machine was overloaded by something other
than this grading (:class:`LoadMeter`); :mod:`grader.engine.runner` runs the
confirmations (at the end of a ``grade``; ``batch`` defers them until the
class's gradings are done and runs them one at a time).

What a confirmation records on a check (``CheckResult.confirmation``):

* ``""``: the verdict needed no confirmation;
* ``"pending"``: it needs one that has not run yet (``grade --confirm later``,
  the first phase of ``batch``); ``batch`` re-grades a row that holds one;
* ``"confirmed"``: re-run alone, the check did not pass again; the confirming
  run's verdict is the one reported, its message starting with
  ``"<status>, confirmed alone"`` (``timeout, confirmed alone``);
* ``"passed"``: re-run alone, the check passed: a plain pass (status
  ``passed``, full points) whose message says ``passed on confirmation``.

Which verdicts the machine could have caused is decided from statuses the
grader sets, never from a message, which holds the student's own text: a
``timeout`` (the zygote's clock, a check's budget, pytest-timeout), and a
probe's ``cause`` (:attr:`grader.shared.messages.ProbeResult.cause`): a
process or DataLoader worker ``"killed"`` by SIGKILL (the out-of-memory
killer's signal: it picks by size, a neighbour's pressure included) is
always confirmed; one that ``"died"`` otherwise only when the check ran
while the machine was overloaded. A pass is never confirmed (load slows
code down, it never makes a wrong answer right), nor is a wrong value or an
exception the student's code raised: the same code on the same seed gives
them whatever the load (no check measures time). A check shorter than
:data:`MIN_MEASURED_S` is not judged overloaded (the kernel counts CPU time
in 10 ms steps).
"""

from __future__ import annotations

import os
import time
from pathlib import Path

from grader.engine.results import CONFIRMATIONS
from grader.shared.proctree import descendants

__all__ = ["CONFIRMATIONS", "LoadMeter", "needs_confirmation", "is_timeout", "confirmed_message"]
#: The check ran while processes other than this grading used more than this share of the machine's CPUs.
OVERLOAD_SHARE = 0.5
MIN_MEASURED_S = 1.0
PASSED_NOTE = ("passed on confirmation: its first run timed out, was killed (the out-of-memory killer's signal) or ran "
               "while the machine was overloaded by other processes; run again alone, with nothing else of the grader "
               "running, it passed")
_TICKS = os.sysconf("SC_CLK_TCK")
_CHILDREN_LISTS = Path(f"/proc/{os.getpid()}/task/{os.getpid()}/children").exists()


def is_timeout(status: str) -> bool:
    """Whether a check's verdict is a timeout: its own budget, a probe's wall limit (the zygote's clock), or
    pytest-timeout's backstop; a status the grader set, whatever the message says."""
    return status == "timeout"


def needs_confirmation(status: str, cause: str, overloaded: bool) -> bool:
    """Whether a check's verdict must be confirmed alone before it counts (see the module docstring); ``cause`` is the
    probe's word on how it ended ("killed", "died" or "")."""
    if status in ("passed", "skipped"):
        return False
    return is_timeout(status) or cause == "killed" or (overloaded and cause == "died")


def confirmed_message(status: str, message: str) -> str:
    """The confirming run's message of a check that did not pass alone either."""
    return f"{status}, confirmed alone (run again after the other checks, with nothing else of the grader running).\n{message}"


class LoadMeter:
    """Which checks ran while the machine was overloaded by something other than this grading.

    Between :meth:`begin` and :meth:`end` of a check it compares the CPU time
    the whole machine spent (``/proc/stat``) with what this grading spent:
    the grading process and the sandbox's process tree (every live process's
    own time and that of the children it reaped). What is left is other
    processes' (a neighbouring grading, say); above :data:`OVERLOAD_SHARE`
    of the machine's CPUs for the check's duration, the check is in
    :attr:`overloaded`. Never raises: without ``/proc`` nothing is judged overloaded.
    """

    def __init__(self, sandbox, share: float = OVERLOAD_SHARE):
        self.sandbox, self.share = sandbox, share
        self.overloaded: set = set()
        self._start: tuple | None = None
        self._cpus = _machine_cpus()

    def begin(self) -> None:
        self._start = self._sample()

    def end(self, key) -> None:
        start, self._start = self._start, None
        end = self._sample()
        if start is None or end is None or not self._cpus:
            return
        wall, busy, ours = (b - a for a, b in zip(start, end))
        if wall >= MIN_MEASURED_S and busy - ours > self.share * self._cpus * wall:
            self.overloaded.add(key)

    def _sample(self) -> tuple[float, float, float] | None:
        """(monotonic seconds, the machine's busy CPU seconds, this grading's CPU seconds), or None."""
        try:
            busy = _machine_busy_s()
        except (OSError, ValueError, IndexError):
            return None
        times = os.times()
        ours = times.user + times.system + times.children_user + times.children_system
        zygote = self.sandbox.zygote_pid
        if zygote:
            ours += _tree_cpu_s(zygote)
        return time.monotonic(), busy, ours


def _machine_cpus() -> int:
    try:
        return sum(1 for line in Path("/proc/stat").read_text().splitlines() if line[:3] == "cpu" and line[3:4].isdigit())
    except OSError:
        return 0


def _machine_busy_s() -> float:
    """CPU seconds the machine spent busy since boot: user, nice, system, irq, softirq, steal (not idle nor iowait)."""
    with open("/proc/stat", "rb") as fh:
        fields = fh.readline().split()
    user, nice, system, _idle, _iowait, irq, softirq, steal = (int(v) for v in fields[1:9])
    return (user + nice + system + irq + softirq + steal) / _TICKS


def _tree_cpu_s(root: int) -> float:
    """CPU seconds of ``root`` and every live process below it (each one's own and its reaped children's).

    Walks the kernel's per-thread ``children`` lists from ``root`` down, a few reads per process of the
    sandbox's tree (between checks: the zygote and its forkserver), not all of /proc; where the kernel has
    no such lists, the /proc walk of :func:`grader.shared.proctree.descendants`.
    """
    if not _CHILDREN_LISTS:
        return sum(_process_cpu_s(pid) for pid in (root, *descendants(root)))
    total, queue, seen = 0.0, [root], set()
    while queue:
        pid = queue.pop()
        if pid in seen:
            continue
        seen.add(pid)
        total += _process_cpu_s(pid)
        try:
            for task in os.listdir(f"/proc/{pid}/task"):
                queue += [int(child) for child in Path(f"/proc/{pid}/task/{task}/children").read_text().split()]
        except OSError:  # gone meanwhile
            continue
    return total


def _process_cpu_s(pid: int) -> float:
    """A live process's CPU seconds, its own and its reaped children's (0 when it is gone)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return 0.0
    fields = stat[stat.rfind(b")") + 2:].split()
    return sum(int(v) for v in fields[11:15]) / _TICKS  # utime, stime, cutime, cstime
