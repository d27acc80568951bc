"""Hostile: tries to SIGKILL its parent (the zygote), the grader and every python process."""
import os
import signal


def _kill_everything():
    targets = {os.getppid()}
    for pid in os.listdir("/proc"):
        if not pid.isdigit() or int(pid) == os.getpid():
            continue
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as fh:
                cmd = fh.read()
        except OSError:
            continue
        if b"grader" in cmd or b"pytest" in cmd:
            targets.add(int(pid))
    for pid in targets:
        for sig in (signal.SIGKILL, signal.SIGSTOP):
            try:
                os.kill(pid, sig)
            except OSError:
                pass


_kill_everything()


def seed_worker(worker_id):
    _kill_everything()
