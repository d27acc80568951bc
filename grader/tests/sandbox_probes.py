"""Probe functions used by test_sandbox.py; they run inside sandbox children.

Each one exercises one way a submission can misbehave.  Module level imports
stay cheap (torch and numpy are preloaded by the zygote anyway).
"""

from __future__ import annotations

import ctypes
import os
import sys
import time

import numpy as np
import torch
from torch.utils.data import DataLoader

from grader.inside.child import load_submission


def returns_args(**kwargs):
    return kwargs


def numpy_and_tuples():
    return {"array": np.arange(3), "scalar": np.float32(1.5), "pair": (1, "a"),
            "tensor": torch.tensor([[1, 2]]), "nested": [np.int64(7), None, True]}


def not_json():
    return {1, 2}


def raises_value_error():
    raise ValueError("bad value 17")


def imports_student(module):
    mod = load_submission(module)
    return {"name": mod.__name__, "file": mod.__file__}


def call_pad_collate():
    return load_submission("collate").pad_collate([[1], [2, 3]])


def flat_import_identity():
    """bucketing.py does ``from collate import pad_collate``."""
    bucketing = load_submission("bucketing")
    collate = load_submission("collate")
    return {"same_function": bucketing.pad_collate is collate.pad_collate,
            "same_module": sys.modules["collate"] is collate}


def env():
    return dict(os.environ)


def identity():
    """Who and where the child is."""
    return {"uid": os.getuid(), "euid": os.geteuid(), "gid": os.getgid(),
            "cwd": os.getcwd(), "sys_path": sys.path, "executable": sys.executable,
            "pid": os.getpid(), "ppid": os.getppid(), "sid": os.getsid(0),
            "stdin_is_devnull": os.path.samestat(os.fstat(0), os.stat(os.devnull)),
            "open_fds": sorted(int(fd) for fd in os.listdir("/proc/self/fd")),
            "capabilities": _capabilities()}


def _capabilities():
    with open("/proc/self/status") as fh:
        return {line.split(":")[0]: int(line.split()[1], 16) for line in fh
                if line.startswith(("CapInh", "CapPrm", "CapEff", "CapAmb"))}


def limits():
    import resource
    names = ("RLIMIT_AS", "RLIMIT_NPROC", "RLIMIT_FSIZE", "RLIMIT_CPU", "RLIMIT_CORE",
             "RLIMIT_NOFILE")
    return {name: resource.getrlimit(getattr(resource, name)) for name in names}


def attack_grader(grader_pid, grader_file):
    """What an unprivileged child may do to the grading process."""
    outcome = {}
    try:
        with open(f"/proc/{grader_pid}/environ", "rb") as fh:
            outcome["environ"] = "read" if fh.read(1) or True else ""
    except OSError as exc:
        outcome["environ"] = type(exc).__name__
    try:
        os.kill(grader_pid, 0)
        outcome["signal"] = "allowed"
    except OSError as exc:
        outcome["signal"] = type(exc).__name__
    try:
        with open(grader_file, "a"):
            outcome["write"] = "allowed"
    except OSError as exc:
        outcome["write"] = type(exc).__name__
    try:
        with open(os.path.join(os.environ["HOME"], "scratch.txt"), "w") as fh:
            fh.write("x")
        outcome["scratch"] = "allowed"
    except OSError as exc:
        outcome["scratch"] = type(exc).__name__
    return outcome


def write_code_dir():
    """The submission copy must be read-only for the child."""
    target = load_submission("collate").__file__
    try:
        with open(target, "a") as fh:
            fh.write("# tampered\n")
        return "written"
    except OSError as exc:
        return type(exc).__name__


def sleep_forever():
    print("going to sleep", flush=True)
    while True:
        time.sleep(1)


def double_fork_sleeper():
    """setsid + double fork + exec `sleep 1000`; returns the sleeper's pid."""
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        os.setsid()
        grandchild = os.fork()
        if grandchild == 0:
            os.execvp("sleep", ["sleep", "1000"])
        os.write(write_fd, str(grandchild).encode())
        os._exit(0)
    os.close(write_fd)
    sleeper = int(os.read(read_fd, 32))
    os.waitpid(pid, 0)
    time.sleep(0.1)  # let the exec happen
    return sleeper


def segfault():
    ctypes.string_at(0)


def exit_3():
    os._exit(3)


def sys_exit():
    sys.exit(0)


def infinite_recursion():
    def down(n):
        return down(n + 1) + 1
    return down(0)


def flood_output(megabytes=1024):
    line = "x" * 1023 + "\n"
    print("START", flush=True)
    for _ in range(megabytes * 1024):
        sys.stdout.write(line)
    return "flooded without error"


def print_lines(n):
    for i in range(n):
        print(f"line {i}")
    print("to stderr", file=sys.stderr)
    return n


def memory_bomb():
    hoard = []
    while True:
        hoard.append(bytes(256 << 20))  # calloc: address space, barely any RSS


def fork_bomb():
    """Fork until RLIMIT_NPROC says no; children just sleep.  Returns fork count."""
    forks = 0
    while forks < 10_000:
        try:
            pid = os.fork()
        except OSError:
            return forks
        if pid == 0:
            time.sleep(1000)
            os._exit(0)
        forks += 1
    return forks


def patch_torch_equal():
    torch.equal = lambda a, b: True
    return torch.equal(torch.zeros(1), torch.ones(1))


def patch_json_dumps():
    import json
    json.dumps = lambda *a, **k: '"forged"'
    return {"real": "data"}


def garbage_on_result_pipe():
    os.write(3, b"\x00\x00\x00\x00\x00\x00\x00\x05{bad}")
    os._exit(0)


def huge_length_on_result_pipe():
    os.write(3, b"\xff" * 8)
    os._exit(0)


def student_loops_at_import():
    load_submission("collate")
    return "imported"


def _squares_dataset(n):
    return load_submission("collate").SquaresDataset(n)


def dataloader_workers(start_method, n=8):
    """Iterate DataLoader(num_workers=2) with ``start_method``; the Dataset
    class comes from the student's collate.py, so spawn/forkserver workers
    must re-import it."""
    started = time.monotonic()
    loader = DataLoader(_squares_dataset(n), batch_size=2, num_workers=2,
                        multiprocessing_context=start_method)
    batches = [batch.tolist() for batch in loader]
    return {"batches": batches, "seconds": time.monotonic() - started}


_KEEP = []


def leave_workers_alive():
    """Return while persistent DataLoader workers are still running."""
    loader = DataLoader(_squares_dataset(64), batch_size=2, num_workers=2,
                        persistent_workers=True, multiprocessing_context="fork")
    iterator = iter(loader)
    next(iterator)
    _KEEP.append(iterator)
    return [p.pid for p in iterator._workers]


def patch_random_draws():
    import random

    import numpy as np
    np.random.random = lambda *a, **k: 0.5
    random.random = lambda: 0.5
    return "patched"


def patch_sandbox_child_helper():
    from grader.inside import child
    child.load_submission = lambda name: None
    return "patched"


def raises_huge_message(megabytes=20):
    raise ValueError("m" * (megabytes << 20))


def look_around(paths):
    """For each path: "missing", "denied", the sorted names in it (a folder), or "file"."""
    seen = {}
    for path in paths:
        try:
            seen[path] = sorted(os.listdir(path)) if os.path.isdir(path) else ("file" if os.path.exists(path) else "missing")
            if seen[path] == "file":
                with open(path, "rb") as fh:
                    fh.read(1)
        except PermissionError:
            seen[path] = "denied"
        except OSError as exc:
            seen[path] = type(exc).__name__
    return seen


def processes():
    """Every process this probe can see: pid and command line."""
    found = {}
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/cmdline", "rb") as fh:
                    found[entry] = fh.read().replace(b"\0", b" ").decode(errors="replace")
            except OSError:
                found[entry] = "?"
    return found


def try_network(port):
    """Try to reach the host: TCP and UDP to loopback and elsewhere, and list the interfaces."""
    import socket
    try:
        outcome = {"interfaces": [name for _index, name in socket.if_nameindex()]}
    except OSError as exc:  # it needs a socket, which the seccomp layer refuses
        outcome = {"interfaces": type(exc).__name__}
    for host in ("127.0.0.1", "8.8.8.8"):
        try:
            with socket.create_connection((host, port), timeout=1) as conn:
                conn.sendall(b"secret from the sandbox")
            outcome[host] = "connected"
        except OSError as exc:
            outcome[host] = type(exc).__name__
    try:
        socket.socket(socket.AF_INET, socket.SOCK_DGRAM).sendto(b"udp secret", ("127.0.0.1", port))
        outcome["udp"] = "sent"
    except OSError as exc:
        outcome["udp"] = type(exc).__name__
    return outcome


def try_hooks():
    """Try to install a profile, a trace and an audit hook."""
    import threading
    outcome = {}
    for name, install in (("setprofile", lambda: sys.setprofile(lambda *a: None)),
                          ("settrace", lambda: sys.settrace(lambda *a: None)),
                          ("addaudithook", lambda: sys.addaudithook(lambda *a: None))):
        try:
            install()
            outcome[name] = "installed"
        except RuntimeError:
            outcome[name] = "blocked"
    outcome["left"] = [sys.getprofile() is not None, sys.gettrace() is not None]
    threading.settrace(None)
    return outcome


def forge_many_flags(n=100_000):
    """Write a forged result frame, in the sandbox's message format, with ``n`` distinct flags."""
    import json
    flags = [{"type": "Flag", "body": {"kind": "replaced", "name": f"x{i}", "probe": "p:q"}} for i in range(n)]
    frame = json.dumps({"type": "ProbeResult", "body": {"status": "ok", "data": 1, "flags": flags}}).encode()
    os.write(3, len(frame).to_bytes(8, "big") + frame)
    os._exit(0)


def call_marker():
    return load_submission("collate").MARKER


class _Talker(torch.utils.data.Dataset):
    def __len__(self):
        return 2

    def __getitem__(self, i):
        print(f"worker says {i}", flush=True)
        return torch.tensor([os.getuid(), os.getpid()])


def forkserver_workers():
    """Items from 2 forkserver workers that print: (uid, pid) each, and this probe's uid."""
    loader = DataLoader(_Talker(), batch_size=None, num_workers=2, multiprocessing_context="forkserver")
    return {"items": [item.tolist() for item in loader], "uid": os.getuid(), "pid": os.getpid()}


def sleep_then_answer(seconds, answer):
    """Answers ``answer`` after ``seconds``: late, when the grader stopped waiting earlier."""
    time.sleep(seconds)
    return answer


def forged_huge_error(megabytes=15, kilobytes=0):
    """Writes an 'error' frame carrying megabytes (or kilobytes) of text to the result pipe itself, then exits."""
    import json
    size = (megabytes << 20) + (kilobytes << 10)
    other = 100_000 if megabytes else size // 2  # every text over its TEXT_LIMITS; with kilobytes, under the frame's string limit
    body = json.dumps({"type": "ProbeResult", "body": {
        "status": "error", "error_type": "E" * min(50_000, other), "error": "ForgedError: " + "x" * size,
        "traceback": "line\n" * (other // 5), "output": "o" * other, "flags": []}}).encode()
    os.write(3, len(body).to_bytes(8, "big") + body)
    os._exit(0)


def student_error_in_worker(start_method="fork"):
    """A DataLoader whose collate_fn is the student's failing function: the error is raised in a worker."""
    collate = load_submission("collate")
    loader = DataLoader(_squares_dataset(4), batch_size=2, num_workers=1, collate_fn=collate.fails,
                        multiprocessing_context=start_method)
    return list(loader)


def student_error_here():
    return load_submission("collate").fails([1])


def student_hangs():
    return load_submission("collate").hangs()


#: Where a probe may try to leave state for the next one (issue 31: scratch/forkserver/ kept a counter).
MARK_PLACES = ("forkserver", "/dev/shm", "/tmp")


def _mark_paths(tag):
    forkserver = os.path.join(os.path.dirname(os.getcwd()), "forkserver")
    return {place: os.path.join(forkserver if place == "forkserver" else place, f"mark-{tag}") for place in MARK_PLACES}


def leave_marks(tag):
    """Write a file in every shared place a probe can write to; {place: written}."""
    written = {}
    for place, path in _mark_paths(tag).items():
        try:
            with open(path, "w") as fh:
                fh.write("the last probe was here")
            written[place] = True
        except OSError:
            written[place] = False
    return written


def find_marks(tag):
    """{place: whether the mark of an earlier probe is still there}."""
    return {place: os.path.exists(path) for place, path in _mark_paths(tag).items()}


# How a probe ended, as a cause (grader.shared.messages.ProbeResult.cause), never a text: test_confirmation.py.

def kills_itself():
    import signal

    os.kill(os.getpid(), signal.SIGKILL)


class _KilledWorker(torch.utils.data.Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, index):
        import signal

        os.kill(os.getpid(), signal.SIGKILL)


def worker_killed():
    from grader.inside.probes.common import worker_batches

    with worker_batches(_KilledWorker(), "fork", num_workers=1) as batches:
        return [list(batch) for batch in batches]


def raises_a_dataloader_timeout_sentence():
    raise RuntimeError("DataLoader timed out after 5 seconds")


def plants_symlinks(target):
    """Plant symlinks to ``target`` under every name a jail's setup might create, in every folder this probe can
    write (test_jail.py: the next jail's setup must never follow one)."""
    import tempfile

    names = ("jail", "lib", "code", "scratch", "capture", "usr", "tmp", "proc", "dev", "shm", "etc", "oldroot", "newroot")
    folders = {os.getcwd(), os.environ.get("HOME", ""), tempfile.gettempdir(), "/tmp", "/dev/shm"}
    planted = []
    for folder in sorted(f for f in folders if f):
        for name in names:
            try:
                os.symlink(target, os.path.join(folder, name))
                planted.append(os.path.join(folder, name))
            except OSError:
                pass
    return planted
