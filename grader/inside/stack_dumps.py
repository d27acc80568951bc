"""Where a probe's code was when its time limit hit: every process that runs student code dumps its stacks.

Each such process arms faulthandler on :data:`DUMP_SIGNAL` (:func:`arm_stack_dump`);
when a probe times out the zygote signals them all (:func:`dump_stacks`), then
reads the stacks from the end of the probe's captured output and keeps the
student's frames (:func:`where_it_hung`).
"""

from __future__ import annotations

import faulthandler
import os
import signal
import sys
import time

from grader.inside.tracebacks import parse_dump, render
from grader.shared.common import SUBMISSION_PACKAGE
from grader.shared.messages import ZygoteConfig
from grader.shared.proctree import descendants

DUMP_SIGNAL = signal.SIGUSR2  # asks a process that runs student code for its stacks (faulthandler)
DUMP_WAIT_S = 0.3  # how long the zygote waits for the stacks before it kills the probe
DUMP_TAIL_BYTES = 64 << 10  # the stacks are the last thing written: read this much of the output's end


def arm_stack_dump() -> None:
    """On :data:`DUMP_SIGNAL`, write every thread's stack to fd 2 (the probe's captured output); fork and
    forkserver workers inherit it. The zygote sends it to a probe's processes when its time limit hits."""
    faulthandler.register(DUMP_SIGNAL, file=sys.stderr, all_threads=True)


def dump_stacks(spare: int | None) -> None:
    """Ask every process the running probe started (the probe child, its workers, the forkserver's workers) for
    its stacks, and give them a moment to write them."""
    for pid in descendants(os.getpid()):
        if pid != spare:
            try:
                os.kill(pid, DUMP_SIGNAL)
            except OSError:
                pass
    time.sleep(DUMP_WAIT_S)


def where_it_hung(capture_fd: int, cfg: ZygoteConfig) -> str:
    """The student's frames in the stacks the processes of a probe that timed out dumped ('' if none)."""
    size = os.fstat(capture_fd).st_size
    tail = os.pread(capture_fd, DUMP_TAIL_BYTES, max(0, size - DUMP_TAIL_BYTES)).decode("utf-8", "replace")
    student_dir = os.path.join(cfg.code_dir, SUBMISSION_PACKAGE)
    for stack in parse_dump(tail):
        if shown := render(stack, student_dir, "Your code was here when the time limit hit (innermost last):",
                           only_with_student_frames=True):
            return shown
    return ""
