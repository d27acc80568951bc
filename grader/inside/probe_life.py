"""One probe child's life inside the jail: fork, lock down, run, clean up.

:func:`run_one` forks one child for one :class:`RunRequest`, locks it down
before any student code runs, waits for it (:mod:`grader.inside.probe_wait`),
asks for the stacks of a probe that hung (:mod:`grader.inside.stack_dumps`),
kills everything left below the zygote, removes the probe's scratch and
returns the :class:`ProbeResult`. The zygote (:mod:`grader.inside.zygote`)
serves the requests; this module is what it does for each.
"""

from __future__ import annotations

import dataclasses
import fcntl
import os
import socket
import sys
import tempfile
import time
from collections.abc import Callable

from grader.inside import forkserver, ipc, lockdown, quota
from grader.inside.probe_wait import interpret, read_output, wait_child
from grader.inside.stack_dumps import arm_stack_dump, dump_stacks, where_it_hung
from grader.inside.tracebacks import strip_dumps
from grader.shared.channel import ChannelError
from grader.shared.common import remove_tree
from grader.shared.messages import ProbeResult, RunRequest, ZygoteConfig
from grader.shared.proctree import kill_descendants

RESULT_FD = 3  # the child's result pipe is moved to this fd number
CLOCK_FD = forkserver.ALIVE_FD + 1  # the child's clock pipe: each line it writes there is stamped by the zygote (marks)
FORKSERVER_CPU_S = 3600  # the shared forkserver lives for the whole grading; its workers die with each probe


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


def _child_setup(state: ZygoteState, scratch: str, capture_fd: int, result_w: int, clock_w: int, timeout: float) -> None:
    """Lock the freshly forked probe child down before any student code runs."""
    cfg = state.cfg
    clock_w = fcntl.fcntl(clock_w, fcntl.F_DUPFD_CLOEXEC, 64)  # out of the way of the numbers dup2'd below
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(capture_fd, 1)
    os.dup2(capture_fd, 2)
    os.dup2(result_w, RESULT_FD, inheritable=False)  # not passed on to exec'd programs
    state.forkserver.hand_to_probe()  # at forkserver.ALIVE_FD, the fd after RESULT_FD
    os.dup2(clock_w, CLOCK_FD, inheritable=False)
    os.setsid()  # own session and process group
    os.closerange(CLOCK_FD + 1, 1 << 20)  # zygote pipes, pidfds, ...
    sys.stdout.reconfigure(line_buffering=True)  # keep output if we crash
    arm_stack_dump()
    lockdown.become_probe_user(cfg, scratch, lockdown.cpu_seconds(cfg, timeout))
    os.chdir(scratch)
    sys.path[:] = [p for p in sys.path if p and os.path.abspath(p) != scratch]
    import multiprocessing
    multiprocessing.current_process().authkey = os.urandom(32)
    forkserver.use_in_probe(state.forkserver.address)


def _child_main(state: ZygoteState, request: RunRequest, scratch: str, capture_fd: int, result_w: int, clock_w: int) -> None:
    try:
        _child_setup(state, scratch, capture_fd, result_w, clock_w, request.timeout)
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
            arm_stack_dump()  # its workers inherit it, writing to the probe's output (their fd 2)
            lockdown.become_probe_user(cfg, state.forkserver.folder, FORKSERVER_CPU_S)

        state.forkserver.start(lock_down, cfg.uid, cfg.gid)


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


#: Shared folders a probe's uid may write in (the jail's own, or the machine's): what it leaves there is removed.
SHARED_WRITABLE = ("/dev/shm", "/tmp")


def _clean_up(state: ZygoteState, scratch: str) -> None:
    """Remove what the probe left, so that the next one starts fresh (no state survives between probes): its scratch
    folder, everything in the shared forkserver's folder but its socket, what the probes' uid left in /dev/shm
    and /tmp, and its System V IPC objects and POSIX message queues (:mod:`grader.inside.ipc`; the seccomp filter
    refuses their creation, this removes them where it did not hold). Without a uid of their own, a probe's files
    and IPC objects cannot be told from others': they stay."""
    cfg = state.cfg
    try:
        remove_tree(scratch)
    except OSError as exc:
        print(f"zygote: could not remove {scratch}: {exc}", file=sys.stderr, flush=True)
    _empty_forkserver_folder(state)
    if cfg.uid is not None:
        for folder in SHARED_WRITABLE:
            quota.remove_files_of(cfg.uid, folder)
        for left in ipc.remove_objects_of(cfg.uid, cfg.gid):
            print(f"zygote: could not remove the probes' IPC object {left}", file=sys.stderr, flush=True)


def _empty_forkserver_folder(state: ZygoteState) -> None:
    """Everything in the forkserver's folder but its listening socket goes; a socket that was replaced stops the
    server (the next probe starts another)."""
    folder, address = state.forkserver.folder, state.forkserver.address
    try:
        names = os.listdir(folder)
    except OSError:
        return
    for name in names:
        path = os.path.join(folder, name)
        if path == address and state.forkserver.owns_socket():
            continue
        try:
            remove_tree(path) if os.path.isdir(path) and not os.path.islink(path) else os.unlink(path)
        except OSError as exc:
            print(f"zygote: could not remove {path}: {exc}", file=sys.stderr, flush=True)
    if state.forkserver.running() and not state.forkserver.owns_socket():
        kill_descendants(os.getpid(), reap=True)  # the server too: ensure_forkserver starts a fresh one
        state.forkserver.stop()


def run_one(state: ZygoteState, request: RunRequest) -> ProbeResult:
    """Fork a child for one probe request and return its result."""
    cfg = state.cfg
    ensure_forkserver(state)
    scratch = tempfile.mkdtemp(prefix="run-", dir=cfg.scratch_root)
    capture_fd = _open_capture_file(cfg.capture_dir)
    result_r, result_w = os.pipe()
    clock_r, clock_w = (end.detach() for end in socket.socketpair())  # both ways: the zygote answers each mark
    go_r, go_w = os.pipe()  # the child waits until its starting memory is read
    sys.stdout.flush()
    sys.stderr.flush()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(result_r)
            os.close(clock_r)
            os.close(go_w)
            os.read(go_r, 1)
            os.close(go_r)
            _child_main(state, request, scratch, capture_fd, result_w, clock_w)
        finally:
            os._exit(70)
    os.close(result_w)
    os.close(clock_w)
    os.close(go_r)
    rss_at_start = _rss_kb(pid)  # a fork starts below the zygote's size: file pages are not copied
    os.write(go_w, b"g")
    os.close(go_w)
    try:
        outcome = wait_child(state.cfg, state.req_fd, pid, result_r, started + request.timeout, clock_r)
        duration = time.monotonic() - started
        if outcome.timed_out:
            dump_stacks(state.forkserver.pid)
        kill_descendants(os.getpid(), reap=True, spare=state.forkserver.pid)
    finally:
        os.close(result_r)
        os.close(clock_r)
    if outcome.grader_gone:
        raise ChannelError("grader went away")
    where = where_it_hung(capture_fd, cfg) if outcome.timed_out else ""
    output = read_output(capture_fd, cfg.limits.output_limit)
    os.close(capture_fd)
    _clean_up(state, scratch)
    result = interpret(cfg, outcome, output, request.timeout)
    growth = max(0, outcome.peak_rss_kb - rss_at_start) / 1024 if outcome.peak_rss_kb and rss_at_start else 0.0
    if outcome.timed_out:
        result = dataclasses.replace(result, traceback=where)
        output = strip_dumps(output)
    marks = [[round(at - started, 6), text] for at, text in outcome.marks]  # the zygote's stamps, whatever the child sent
    return dataclasses.replace(result, output=output, duration_s=duration, rss_growth_mb=round(growth, 1), marks=marks)
