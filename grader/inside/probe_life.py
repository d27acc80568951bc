"""One probe child's life inside the jail: fork, lock down, wait, measure, interpret.

:func:`run_one` forks one child for one :class:`RunRequest`, waits for its
result frame or its exit up to the request's timeout (measuring the write
quota where no tmpfs caps it, :mod:`grader.inside.quota`), kills everything
left below the zygote, and turns what the child left behind into a
:class:`ProbeResult` (its frame may be forged: the frame is bounded and typed
here, judged on the host). The zygote (:mod:`grader.inside.zygote`) serves
the requests; this module is what it does for each.
"""

from __future__ import annotations

import dataclasses
import faulthandler
import os
import select
import signal
import sys
import tempfile
import time
from collections.abc import Callable

from grader.inside import forkserver, lockdown, quota
from grader.inside.tracebacks import parse_dump, render, strip_dumps
from grader.shared import channel
from grader.shared.channel import ChannelError
from grader.shared.common import SUBMISSION_PACKAGE, remove_tree
from grader.shared.messages import Flag, ProbeResult, RunRequest, ZygoteConfig
from grader.shared.proctree import descendants, describe_wait_status, kill_descendants

RESULT_FD = 3  # the child's result pipe is moved to this fd number
FORKSERVER_CPU_S = 3600  # the shared forkserver lives for the whole grading; its workers die with each probe
DUMP_SIGNAL = signal.SIGUSR2  # asks a process that runs student code for its stacks (faulthandler)
DUMP_WAIT_S = 0.3  # how long the zygote waits for the stacks before it kills the probe
DUMP_TAIL_BYTES = 64 << 10  # the stacks are the last thing written: read this much of the output's end
QUOTA_CHECK_S = 0.25  # how often the write quota is measured while a probe runs (without a jail's tmpfs)


@dataclasses.dataclass
class ZygoteState:
    """Everything a probe child needs, fixed when the zygote starts."""

    cfg: ZygoteConfig
    req_fd: int
    resp_fd: int
    run_probe: Callable[[str, dict, int, int], None]  # grader.inside.child.make_runner(...)
    forkserver: forkserver.SharedForkServer


# --------------------------------------------------------------------------
# the probe child (runs after fork, never returns)


def _child_setup(state: ZygoteState, scratch: str, capture_fd: int, result_w: int, timeout: float) -> None:
    """Lock the freshly forked probe child down before any student code runs."""
    cfg = state.cfg
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(capture_fd, 1)
    os.dup2(capture_fd, 2)
    os.dup2(result_w, RESULT_FD, inheritable=False)  # not passed on to exec'd programs
    state.forkserver.hand_to_probe()  # at forkserver.ALIVE_FD, the fd after RESULT_FD
    os.setsid()  # own session and process group
    os.closerange(forkserver.ALIVE_FD + 1, 1 << 20)  # zygote pipes, pidfds, ...
    sys.stdout.reconfigure(line_buffering=True)  # keep output if we crash
    _arm_stack_dump()
    lockdown.become_probe_user(cfg, scratch, lockdown.cpu_seconds(cfg, timeout))
    os.chdir(scratch)
    sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != scratch]
    import multiprocessing
    multiprocessing.current_process().authkey = os.urandom(32)
    forkserver.use_in_probe(state.forkserver.address)


def _child_main(state: ZygoteState, request: RunRequest, scratch: str, capture_fd: int, result_w: int) -> None:
    try:
        _child_setup(state, scratch, capture_fd, result_w, request.timeout)
    except BaseException as exc:  # noqa: BLE001
        os.write(2, f"sandbox setup failed: {type(exc).__name__}: {exc}\n".encode())
        os._exit(70)
    state.run_probe(request.probe, request.args, RESULT_FD, state.cfg.limits.result_cap)
    os._exit(72)  # not reached


def ensure_forkserver(state: ZygoteState) -> None:
    """Start the shared forkserver unless it runs (first probe, or a student's code killed it)."""
    if not state.forkserver.running():
        cfg = state.cfg

        def lock_down() -> None:
            _arm_stack_dump()  # its workers inherit it, writing to the probe's output (their fd 2)
            lockdown.become_probe_user(cfg, state.forkserver.folder, FORKSERVER_CPU_S)

        state.forkserver.start(lock_down, cfg.uid, cfg.gid)


def _arm_stack_dump() -> None:
    """On :data:`DUMP_SIGNAL`, write every thread's stack to fd 2 (the probe's captured output); fork and
    forkserver workers inherit it. The zygote sends it to a probe's processes when its time limit hits."""
    faulthandler.register(DUMP_SIGNAL, file=sys.stderr, all_threads=True)


def _dump_stacks(state: ZygoteState) -> None:
    """Ask every process the running probe started (the probe child, its workers, the forkserver's workers) for
    its stacks, and give them a moment to write them."""
    spare = state.forkserver.pid
    for pid in descendants(os.getpid()):
        if pid != spare:
            try:
                os.kill(pid, DUMP_SIGNAL)
            except OSError:
                pass
    time.sleep(DUMP_WAIT_S)


# --------------------------------------------------------------------------
# waiting for the child and building the response


@dataclasses.dataclass
class ChildEnd:
    status: int | None = None  # wait status; None if it had to be killed
    result: bytes = b""
    timed_out: bool = False
    overflow: bool = False
    grader_gone: bool = False
    over_quota: str = ""  # what the probe wrote beyond its quota (killed for it)
    peak_rss_kb: int = 0


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


def _wait_child(state: ZygoteState, pid: int, result_r: int, deadline: float) -> ChildEnd:
    """Collect the child's result and wait for its exit, up to ``deadline``."""
    outcome, buf = ChildEnd(), bytearray()
    cap = state.cfg.limits.result_cap + 8
    pidfd = os.pidfd_open(pid)
    os.set_blocking(result_r, False)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    poller.register(result_r, select.POLLIN)
    poller.register(state.req_fd, 0)  # only POLLHUP/POLLERR: the grader went away
    watch = _QuotaWatch(state.cfg) if state.cfg.write_quota_mb else None
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
                elif fd == pidfd:
                    exited = True
                elif fd == state.req_fd:
                    outcome.grader_gone = True
            if len(buf) > cap:
                outcome.overflow = True
                return outcome
            if outcome.grader_gone:
                return outcome
            if exited:
                _drain(result_r, buf, cap)
                outcome.overflow = len(buf) > cap
                _pid, outcome.status, usage = os.wait4(pid, 0)
                outcome.peak_rss_kb = usage.ru_maxrss
                outcome.result = bytes(buf)
                if watch is not None:  # a probe quicker than one measurement is measured once it has exited
                    outcome.over_quota = watch.exceeded(always=True)
                return outcome
    finally:
        os.close(pidfd)


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


def _read_output(fd: int, limit: int) -> str:
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


def _interpret(cfg: ZygoteConfig, outcome: ChildEnd, output: str, timeout: float) -> ProbeResult:
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
        return ProbeResult("crashed", error=_death_text(cfg, outcome.status, output, timeout))
    try:
        result = channel.parse(channel.unframe(outcome.result, cfg.limits.result_cap), ProbeResult)
        if result.status not in ("ok", "error") or not all(isinstance(f, Flag) for f in result.flags):
            raise ChannelError(f"status {result.status!r}")
    except ChannelError as exc:
        how = describe_wait_status(outcome.status) if outcome.status is not None else ""
        return ProbeResult("crashed", error=f"invalid data on the result pipe ({str(exc)[:200]}); child {how}")
    return dataclasses.replace(result, data=result.data if result.ok else None).bounded()


def _open_capture_file(directory: str) -> int:
    """An anonymous file (no name anywhere) for the child's stdout/stderr."""
    return os.open(directory, os.O_TMPFILE | os.O_RDWR, 0o600)


def _rss_kb(pid: int) -> int:
    """Resident memory of ``pid`` (kB), 0 if unknown."""
    try:
        with open(f"/proc/{pid}/status", "rb") as fh:
            for line in fh:
                if line.startswith(b"VmRSS:"):
                    return int(line.split()[1])
    except OSError:
        pass
    return 0


def run_one(state: ZygoteState, request: RunRequest) -> ProbeResult:
    """Fork a child for one probe request and return its result."""
    cfg = state.cfg
    ensure_forkserver(state)
    scratch = tempfile.mkdtemp(prefix="run-", dir=cfg.scratch_root)
    capture_fd = _open_capture_file(cfg.capture_dir)
    result_r, result_w = os.pipe()
    go_r, go_w = os.pipe()  # the child waits until its starting memory is read
    sys.stdout.flush()
    sys.stderr.flush()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(result_r)
            os.close(go_w)
            os.read(go_r, 1)
            os.close(go_r)
            _child_main(state, request, scratch, capture_fd, result_w)
        finally:
            os._exit(70)
    os.close(result_w)
    os.close(go_r)
    rss_at_start = _rss_kb(pid)  # a fork starts below the zygote's size: file pages are not copied
    os.write(go_w, b"g")
    os.close(go_w)
    try:
        outcome = _wait_child(state, pid, result_r, started + request.timeout)
        duration = time.monotonic() - started
        if outcome.timed_out:
            _dump_stacks(state)
        kill_descendants(os.getpid(), reap=True, spare=state.forkserver.pid)
    finally:
        os.close(result_r)
    if outcome.grader_gone:
        raise ChannelError("grader went away")
    where = _where_it_hung(capture_fd, cfg) if outcome.timed_out else ""
    output = _read_output(capture_fd, cfg.limits.output_limit)
    os.close(capture_fd)
    try:
        remove_tree(scratch)
    except OSError as exc:
        print(f"zygote: could not remove {scratch}: {exc}", file=sys.stderr, flush=True)
    if cfg.write_quota_mb and cfg.uid is not None:
        quota.remove_shm_files(cfg.uid)  # the machine's /dev/shm: nothing of the probe's may stay
    result = _interpret(cfg, outcome, output, request.timeout)
    growth = max(0, outcome.peak_rss_kb - rss_at_start) / 1024 if outcome.peak_rss_kb and rss_at_start else 0.0
    if outcome.timed_out:
        result = dataclasses.replace(result, traceback=where)
        output = strip_dumps(output)
    return dataclasses.replace(result, output=output, duration_s=duration, rss_growth_mb=round(growth, 1))


def _where_it_hung(capture_fd: int, cfg: ZygoteConfig) -> str:
    """The student's frames in the stacks the processes of a probe that timed out dumped ('' if none)."""
    size = os.fstat(capture_fd).st_size
    tail = os.pread(capture_fd, DUMP_TAIL_BYTES, max(0, size - DUMP_TAIL_BYTES)).decode("utf-8", "replace")
    student_dir = os.path.join(cfg.code_dir, SUBMISSION_PACKAGE)
    for stack in parse_dump(tail):
        if shown := render(stack, student_dir, "Your code was here when the time limit hit (innermost last):",
                           only_with_student_frames=True):
            return shown
    return ""
