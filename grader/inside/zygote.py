"""The zygote: a long-lived ``python -I -B`` process inside the jail.

It preloads torch, numpy and the probe modules once, arms the integrity
detectors, then forks one locked-down child per probe request.  Started and
spoken to only by :class:`grader.sandbox.Sandbox`, over two pipes whose fd
numbers are on its command line (typed messages, :mod:`grader.shared.messages`):

1. grader -> zygote: :class:`ZygoteConfig`; zygote -> grader: :class:`Ready`.
2. grader -> zygote: :class:`RunRequest`; zygote -> grader: :class:`ProbeResult`,
   whose ``request_id`` repeats the request's ``id``.
3. :class:`Exit`, or end of file on the request pipe: the zygote kills every
   descendant and exits.

What the zygote adds to what bubblewrap does (see :mod:`grader.sandbox.jail`):
per-process rlimits, a wall-clock timeout per probe, bounded output and
results, the switch of each probe child to the sandbox's own uid (when the
jail runs as root), and, as a child subreaper running one probe at a time,
the SIGKILL of every process left below it after each probe, detached ones
included.  It never imports student code itself, and it measures each
child's peak memory from outside (wait4). What it does for each request is
:mod:`grader.inside.probe_life`.
"""

from __future__ import annotations

import ctypes
import dataclasses
import gc
import importlib
import os
import sys
import time
import traceback

from grader.inside import forkserver, layers, lockdown
from grader.inside.probe_life import ZygoteState, ensure_forkserver, run_one
from grader.shared import channel
from grader.shared.channel import ChannelError
from grader.shared.messages import Exit, ProbeResult, Ready, RunRequest, ZygoteConfig
from grader.shared.proctree import kill_descendants

MAX_REQUEST = 64 << 20  # the largest request frame the zygote reads (probe arguments are JSON)
HUGE_PAGE = 2 << 20
MADV_NOHUGEPAGE, MADV_COLLAPSE = 15, 25  # <sys/mman.h>; MADV_COLLAPSE since Linux 6.1


def _prepare(cfg: ZygoteConfig, req_fd: int, resp_fd: int) -> tuple[ZygoteState, Ready]:
    """Preload, arm the detectors, apply the kernel's layers and start the shared forkserver; the Ready to send."""
    sys.path[:] = [cfg.lib_dir, cfg.code_dir, *(p for p in sys.path if p not in (cfg.lib_dir, cfg.code_dir))]
    sys.dont_write_bytecode = True
    started = time.monotonic()
    # numpy 2 imports numpy.random lazily: import it now so its functions are watched.
    lazy = ("numpy.random",) if "numpy" in cfg.preload else ()
    for name in (*cfg.preload, *lazy, "json", "pickle", "random", "traceback",
                 "multiprocessing.popen_fork", "multiprocessing.popen_spawn_posix",
                 "multiprocessing.popen_forkserver", "multiprocessing.queues",
                 "multiprocessing.synchronize", *cfg.probe_modules):
        importlib.import_module(name)
    from grader.inside import child, integrity

    run_probe = child.make_runner(integrity.arm(), cfg.code_dir)
    # What is loaded now lives as long as the zygote: out of the collector's sight, a probe child's (and a
    # forkserver worker's) collections skip torch's objects instead of walking them all (about a tenth of a
    # grading's CPU). Collections then come sooner, so a student's garbage may be finalized during the probe.
    gc.freeze()
    _collapse_into_huge_pages()
    preload_s = time.monotonic() - started
    lockdown.prctl(lockdown.PR_SET_CHILD_SUBREAPER, 1)
    # Children that share our uid (no uid switch) must not ptrace or read our memory.
    lockdown.prctl(lockdown.PR_SET_DUMPABLE, 0)
    held, missing = layers.apply(cfg)  # before the first fork: every process that runs student code is inside
    shared = forkserver.SharedForkServer(os.path.join(cfg.scratch_root, "forkserver"))
    state = ZygoteState(cfg=cfg, req_fd=req_fd, resp_fd=resp_fd, run_probe=run_probe, forkserver=shared)
    ensure_forkserver(state)
    return state, Ready(ok=True, dropped=cfg.uid is not None, preload_s=preload_s, layers=held, missing=missing)


def _collapse_into_huge_pages() -> None:
    """Back what the preload wrote on the heap (about 150 MB with torch) with 2 MB pages, where the kernel can.

    A probe is a fork of this process and an exit, and both cost the kernel in
    proportion to the page-table entries they copy and tear down: with 2 MB
    pages, one entry instead of 512. Measured here, a fork and exit went
    from 18 to 11 ms of CPU, for about 0.3 s of CPU once, here; a full
    grading of the solutions took 12.8 CPU-s instead of 15.0. The child
    still copies only the 4 kB it writes.
    The regions are then marked MADV_NOHUGEPAGE so that what a probe child
    allocates later comes in 4 kB pages, as before. One difference in what
    the zygote measures: a 2 MB page is resident whole, so the few MB of
    holes the preload had left in those regions are resident when a child
    starts, and a child that writes there no longer shows it as growth
    (``rss_growth_mb``; 3 MB less for a corpus answer that grows by 74 MB,
    against the memory checks' bound of 30 MB). A kernel without
    MADV_COLLAPSE (before 6.1), or with huge pages off, refuses and nothing
    changes.
    """
    try:
        madvise = ctypes.CDLL(None, use_errno=True).madvise
        madvise.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        with open("/proc/self/maps") as maps:
            regions = [line.split() for line in maps]
    except (OSError, AttributeError):
        return
    for fields in regions:
        if fields[1] != "rw-p" or (len(fields) > 5 and fields[5] != "[heap]"):
            continue  # only private anonymous memory (and the heap): not files, not the stack
        low, high = (int(bound, 16) for bound in fields[0].split("-"))
        low = -(-low // HUGE_PAGE) * HUGE_PAGE
        high = high // HUGE_PAGE * HUGE_PAGE
        if high - low >= HUGE_PAGE and madvise(low, high - low, MADV_COLLAPSE) == 0:
            madvise(low, high - low, MADV_NOHUGEPAGE)


# --------------------------------------------------------------------------
# main loop


def _serve(state: ZygoteState) -> bool:
    """Answer requests until told to exit (True) or the grader is gone (False)."""
    while True:
        try:
            request = channel.receive(state.req_fd, None, MAX_REQUEST, RunRequest, Exit)
        except ChannelError:
            return False  # the grader closed the pipe (or died)
        if isinstance(request, Exit):
            return True
        try:
            response = run_one(state, request)
        except ChannelError:
            return False
        except Exception as exc:  # noqa: BLE001 - a zygote bug must not hang the grader
            response = ProbeResult("crashed", error=f"sandbox zygote error: {type(exc).__name__}: {exc}",
                                   traceback=traceback.format_exc()[-3000:])
        response = dataclasses.replace(response, request_id=request.id)
        try:
            channel.send(state.resp_fd, response, time.monotonic() + 60)
        except ChannelError:
            return False


def main(req_fd: int, resp_fd: int) -> None:
    """Entry point; see the module docstring for the protocol."""
    try:
        cfg = channel.receive(req_fd, time.monotonic() + 60, MAX_REQUEST, ZygoteConfig)
        state, ready = _prepare(cfg, req_fd, resp_fd)
    except BaseException as exc:  # noqa: BLE001
        try:
            channel.send(resp_fd, Ready(ok=False, error=f"{type(exc).__name__}: {exc}",
                                        traceback=traceback.format_exc()[-3000:]), time.monotonic() + 10)
        finally:
            os._exit(1)
    channel.send(resp_fd, ready, time.monotonic() + 60)
    try:
        _serve(state)
    finally:
        kill_descendants(os.getpid(), reap=True)
        os._exit(0)
