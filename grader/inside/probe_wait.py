"""Waiting for a probe child and reading what it left: its result frame, its exit, its output, its quota.

:func:`wait_child` waits for the child's result frame and its exit up to the
deadline, measuring the write quota where no tmpfs caps it
(:mod:`grader.inside.quota`); :func:`interpret` turns what it left (the frame
may be forged: bounded and typed here, judged on the host) into a
:class:`ProbeResult`.
"""

from __future__ import annotations

import dataclasses
import os
import select
import signal
import time

from grader.inside import lockdown, quota
from grader.shared import channel, messages
from grader.shared.channel import ChannelError
from grader.shared.messages import FRAME_REFUSED, Flag, ProbeResult, ShapeError, ZygoteConfig, refused_frame_text
from grader.shared.proctree import describe_wait_status

QUOTA_CHECK_S = 0.25  # how often the write quota is measured while a probe runs (without a jail's tmpfs)
MAX_MARKS = messages.MAX_MARKS  # the most marks the zygote stamps for one probe; later lines are read and dropped
MAX_MARK_CHARS = messages.MAX_MARK_CHARS  # the longest mark kept, its answer included; a longer line is dropped
ANSWER_BYTES = 8  # each mark's answer: this many random bytes, drawn by the zygote as it reads the mark
ANSWER_SEPARATOR = " #"  # a kept mark is the child's line, this, and its answer in hex
MAX_LINE_CHARS = MAX_MARK_CHARS - len(ANSWER_SEPARATOR) - 2 * ANSWER_BYTES  # the longest line of the child's kept


@dataclasses.dataclass
class ChildEnd:
    status: int | None = None  # wait status; None if it had to be killed
    result: bytes = b""
    timed_out: bool = False
    overflow: bool = False
    grader_gone: bool = False
    over_quota: str = ""  # what the probe wrote beyond its quota (killed for it)
    peak_rss_kb: int = 0
    marks: list = dataclasses.field(default_factory=list)  # [(time.monotonic() when read, line)]: see _Marks


class _Marks:
    """The lines a probe writes on its clock socket, each stamped with the zygote's clock when it is read, and answered.

    The stamp is the zygote's (outside the child), so a child that changes its
    own clocks changes nothing here; what the child controls is when it writes
    and what. Each kept line is answered on the same socket with
    :data:`ANSWER_BYTES` random bytes in hex and a newline, drawn here as the
    line is read: after the child was forked, so nothing in the child's
    memory held them before its mark was stamped (the throughput probe draws
    a stretch's windows from its start mark's answer). The answer is kept in
    the mark, after :data:`ANSWER_SEPARATOR`: the last one in a mark's text is
    the zygote's, whatever the child wrote. The answer is written without
    blocking and dropped if the child's socket is full. Bounded:
    :data:`MAX_MARKS` lines of at most :data:`MAX_LINE_CHARS`.
    """

    def __init__(self, fd: int):
        self.fd, self.partial, self.lines = fd, b"", []

    def read(self) -> bool:
        """Stamp what is there now (at most 1 MB: a child that floods the pipe cannot hold the zygote); True at end of file."""
        for _ in range(16):
            try:
                chunk = os.read(self.fd, 1 << 16)
            except BlockingIOError:
                return False
            if not chunk:
                return True
            now = time.monotonic()
            *complete, self.partial = (self.partial + chunk).split(b"\n")
            self.partial = self.partial[-MAX_MARK_CHARS - 1:]
            for line in complete:
                if len(self.lines) < MAX_MARKS and len(line) <= MAX_LINE_CHARS:
                    answer = os.urandom(ANSWER_BYTES).hex()
                    self.lines.append((now, f"{line.decode('ascii', 'replace')}{ANSWER_SEPARATOR}{answer}"))
                    self._answer(answer)
        return False

    def _answer(self, answer: str) -> None:
        try:
            os.write(self.fd, answer.encode("ascii") + b"\n")
        except OSError:  # full (a child that never reads), gone, or a one-way pipe: the mark keeps its answer anyway
            pass


def _drain(fd: int, buf: bytearray, cap: int) -> bool:
    """Read what is available into ``buf``; True once end of file is seen."""
    while len(buf) <= cap:
        try:
            chunk = os.read(fd, 1 << 20)
        except BlockingIOError:
            return False
        if not chunk:
            return True
        buf += chunk
    return False


def wait_child(cfg: ZygoteConfig, req_fd: int, pid: int, result_r: int, deadline: float, clock_r: int = -1) -> ChildEnd:
    """Collect the child's result and its clock marks (``clock_r``, if given), and wait for its exit, up to ``deadline``."""
    outcome, buf = ChildEnd(), bytearray()
    marks = _Marks(clock_r) if clock_r >= 0 else None
    cap = cfg.limits.result_cap + 8
    pidfd = os.pidfd_open(pid)
    os.set_blocking(result_r, False)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    poller.register(result_r, select.POLLIN)
    poller.register(req_fd, 0)  # only POLLHUP/POLLERR: the grader went away
    if marks is not None:
        os.set_blocking(clock_r, False)
        poller.register(clock_r, select.POLLIN)
    watch = _QuotaWatch(cfg) if cfg.write_quota_mb else None
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                outcome.timed_out = True
                return outcome
            if watch is not None:
                outcome.over_quota = watch.exceeded()
                if outcome.over_quota:
                    return outcome
            exited = False
            wait = remaining if watch is None else min(remaining, QUOTA_CHECK_S)
            for fd, _events in poller.poll(max(1, int(wait * 1000) + 1)):
                if fd == result_r and _drain(result_r, buf, cap):
                    poller.unregister(result_r)
                elif marks is not None and fd == clock_r and marks.read():
                    poller.unregister(clock_r)
                elif fd == pidfd:
                    exited = True
                elif fd == req_fd:
                    outcome.grader_gone = True
            if len(buf) > cap:
                outcome.overflow = True
                return outcome
            if outcome.grader_gone:
                return outcome
            if exited:
                _drain(result_r, buf, cap)
                if marks is not None:
                    marks.read()
                outcome.overflow = len(buf) > cap
                _pid, outcome.status, usage = os.wait4(pid, 0)
                outcome.peak_rss_kb = usage.ru_maxrss
                outcome.result = bytes(buf)
                if watch is not None:  # a probe quicker than one measurement is measured once it has exited
                    outcome.over_quota = watch.exceeded(always=True)
                return outcome
    finally:
        os.close(pidfd)
        if marks is not None:
            outcome.marks = marks.lines


class _QuotaWatch:
    """Measures what the running probe has written where no tmpfs caps it (see :mod:`grader.inside.quota`)."""

    def __init__(self, cfg: ZygoteConfig):
        self.cfg, self.since, self.limit = cfg, time.time(), cfg.write_quota_mb << 20
        self.next_at = 0.0

    def exceeded(self, always: bool = False) -> str:
        """'' while the probe is within its quota, else what it did. Measures at most every
        :data:`QUOTA_CHECK_S` (unless ``always``), and never spends more than a tenth of the time measuring."""
        now = time.monotonic()
        if now < self.next_at and not always:
            return ""
        used, entries = quota.written_bytes([self.cfg.scratch_root], shm_uid=self.cfg.uid, shm_since=self.since)
        self.next_at = time.monotonic() + max(QUOTA_CHECK_S, 10 * (time.monotonic() - now))
        if entries > quota.MAX_ENTRIES:
            return f"created more than {quota.MAX_ENTRIES:,} files and folders in its scratch folders"
        if used > self.limit:
            return f"wrote more than {self.cfg.write_quota_mb} MB to its scratch folders and /dev/shm"
        return ""


def read_output(fd: int, limit: int) -> str:
    """The captured stdout+stderr, cut to ``limit`` characters (head and tail kept)."""
    size = os.fstat(fd).st_size
    head = os.pread(fd, min(size, 2 * limit), 0).decode("utf-8", "replace")
    if size <= 2 * limit and len(head) <= limit:
        return head
    tail = os.pread(fd, 2 * limit, max(0, size - 2 * limit)).decode("utf-8", "replace")
    marker_len = len("\n[... 000000000000 characters cut ...]\n")
    keep = max(0, limit - marker_len)
    head, tail = head[:keep - keep // 2], tail[len(tail) - keep // 2:] if keep // 2 else ""
    dropped = max(0, size - len(head.encode()) - len(tail.encode()))
    return f"{head}\n[... {dropped} characters cut ...]\n{tail}"[:limit]


def _death_text(cfg: ZygoteConfig, status: int, output: str, timeout: float) -> str:
    text = describe_wait_status(status)
    if os.WIFEXITED(status):
        text += " before returning a result"
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    if sig == signal.SIGXCPU:
        text += f" (CPU time limit of {lockdown.cpu_seconds(cfg, timeout)} s exceeded)"
    elif any(hint in output for hint in ("MemoryError", "bad_alloc", "Cannot allocate memory",
                                         "can't allocate memory")):
        text += f" (probably the memory limit of {cfg.limits.memory_mb} MB)"
    elif sig == signal.SIGKILL:
        text += " (CPU time limit, memory limit or the OOM killer)"
    return text


def interpret(cfg: ZygoteConfig, outcome: ChildEnd, output: str, timeout: float) -> ProbeResult:
    """Turn what the child left behind into a ProbeResult (its frame may be forged)."""
    if outcome.timed_out:
        return ProbeResult("timeout", error=f"probe did not finish within {timeout:g} s and was killed")
    if outcome.over_quota:
        return ProbeResult("error", error_type="QuotaExceeded",
                           error=f"QuotaExceeded: your code {outcome.over_quota} and was stopped")
    if outcome.overflow:
        return ProbeResult("error", error_type="ResultTooLarge",
                           error=f"ResultTooLarge: result exceeds {cfg.limits.result_cap} bytes")
    if not outcome.result:
        return ProbeResult("crashed", error=_death_text(cfg, outcome.status, output, timeout), cause=_cause(outcome.status))
    try:
        result = channel.parse(channel.unframe(outcome.result, cfg.limits.result_cap), ProbeResult)
        if result.status not in ("ok", "error") or not all(isinstance(f, Flag) for f in result.flags):
            raise ChannelError(f"status {result.status!r}")
    except ChannelError as exc:
        if isinstance(exc.__cause__, ShapeError):
            return ProbeResult("error", error_type=FRAME_REFUSED, error=refused_frame_text(str(exc)))
        how = describe_wait_status(outcome.status) if outcome.status is not None else ""
        return ProbeResult("crashed", error=f"invalid data on the result pipe ({str(exc)[:200]}); child {how}")
    # A cause in the child's own frame is only the probe's word on a DataLoader worker (see ProbeResult.cause).
    return dataclasses.replace(result, data=result.data if result.ok else None,
                               cause="" if result.ok else result.cause).bounded()


def _cause(status: int | None) -> str:
    """ProbeResult.cause of a child that ended without a result: "killed" by SIGKILL (which the zygote sends only on a
    timeout, reported as such), "died" otherwise."""
    if status is not None and os.WIFSIGNALED(status) and os.WTERMSIG(status) == signal.SIGKILL:
        return "killed"
    return "died"
