"""Helpers for the tests of the Landlock and seccomp layers (test_landlock.py, test_seccomp.py).

* :func:`in_child` runs a function in a freshly forked child, so that a layer
  (which can never be undone) dies with it; the child's result comes back as JSON.
* :class:`SquaresDataset` lives here, in an importable module, so that spawn
  and forkserver DataLoader workers can unpickle it.
* ``python -m grader.tests.layers_support loaders DIR`` applies both layers
  and runs DataLoader workers under fork, spawn and forkserver (prints JSON);
  ``python -m grader.tests.layers_support cost DIR [N]`` prints the median time
  of applying the layers, over N fresh interpreters and N forks of a torch process.
"""

from __future__ import annotations

import json
import os
import select
import statistics
import subprocess
import sys
import tempfile
import time
import traceback

from grader.inside import landlock, seccomp
from grader.paths import REPO
from grader.sandbox.jail import interpreter_paths

SYSTEM = ("/usr", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32")
LOADER_FILES = ("/etc/ld.so.cache", "/etc/ld.so.conf", "/etc/ld.so.conf.d")


def in_child(fn, *args, timeout: float = 60.0):
    """``fn(*args)`` in a forked child; its JSON-able result, or AssertionError with the child's traceback."""
    read_fd, write_fd = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    pid = os.fork()
    if pid == 0:
        os.close(read_fd)
        try:
            message = {"ok": fn(*args)}
        except BaseException:  # noqa: BLE001 - everything goes back to the test
            message = {"error": traceback.format_exc()}
        with os.fdopen(write_fd, "w") as out:
            json.dump(message, out)
        os._exit(0)
    os.close(write_fd)
    chunks, deadline = [], time.monotonic() + timeout
    with os.fdopen(read_fd) as pipe:
        while select.select([pipe], [], [], max(0.0, deadline - time.monotonic()))[0]:
            chunk = pipe.read()
            if not chunk:
                break
            chunks.append(chunk)
        else:
            os.kill(pid, 9)
    _pid, status = os.waitpid(pid, 0)
    text = "".join(chunks)
    if not text:
        raise AssertionError(f"the child sent nothing back (wait status {status:#x})")
    message = json.loads(text)
    if "error" in message:
        raise AssertionError(f"in the child:\n{message['error']}")
    return message["ok"]


def rules(scratch: str) -> dict:
    """Rules like the zygote's: run the interpreter and the system, read the grader, write ``scratch`` and /dev/shm."""
    return {"read_exec": [*SYSTEM, *interpreter_paths()],
            "read_only": [str(REPO), *LOADER_FILES, "/proc", "/dev/urandom"],
            "read_write": [scratch, "/dev/shm", "/dev/null"]}


def apply_layers(scratch: str) -> dict:
    """Both layers, as a process that runs student code gets them; returns their statuses."""
    os.environ["TMPDIR"] = scratch
    tempfile.tempdir = None
    ll = landlock.restrict(**rules(scratch))
    sc = seccomp.install("sandbox")
    return {"landlock": ll.to_dict(), "seccomp": sc.to_dict()}


class SquaresDataset:
    """``i -> (i, i*i)`` as a tensor, the worker's pid (workers ran) and 1 if the worker is under both layers.

    Not a torch Dataset subclass, so that importing this module stays free of torch.
    """

    def __len__(self) -> int:
        return 12

    def __getitem__(self, i):
        import torch
        return torch.tensor([i, i * i]), os.getpid(), int(_restricted())


def _restricted() -> bool:
    """Whether this process is under a seccomp filter and a Landlock domain (/etc/passwd is granted to no one)."""
    with open("/proc/self/status") as status:
        filtered = any(line.split() == ["Seccomp:", "2"] for line in status)
    try:
        open("/etc/passwd").close()
        return False
    except PermissionError:
        return filtered


def _batches(method: str | None) -> tuple[list, set]:
    import torch
    from torch.utils.data import DataLoader
    kwargs = {"num_workers": 2, "multiprocessing_context": method, "timeout": 60} if method else {}
    loader = DataLoader(SquaresDataset(), batch_size=4, **kwargs)
    batches, pids = [], set()
    for values, worker_pids, restricted in loader:
        assert isinstance(values, torch.Tensor) and all(restricted.tolist()), "a worker outside the layers"
        batches.append(values.tolist())
        pids.update(worker_pids.tolist())
    return batches, pids


def loaders(scratch: str) -> dict:
    """As the zygote: torch first, then both layers; then load with 0 workers and with 2 under each start method.

    The forkserver preloads torch, as the zygote's shared server does; spawn workers import it under the layers.
    """
    import multiprocessing

    import torch  # noqa: F401
    multiprocessing.get_context("forkserver").set_forkserver_preload(["torch"])
    result = {"layers": apply_layers(scratch), "main_pid": os.getpid()}
    result["serial"], _pids = _batches(None)
    for method in ("fork", "spawn", "forkserver"):
        started = time.monotonic()
        try:
            batches, pids = _batches(method)
            result[method] = {"batches": batches, "worker_pids": sorted(pids), "seconds": round(time.monotonic() - started, 2)}
        except Exception as exc:  # noqa: BLE001 - reported, the test says which method failed
            result[method] = {"error": f"{type(exc).__name__}: {exc}"}
    return result


def _timed(granted: dict) -> list[float]:
    """Seconds to apply Landlock, seccomp, and both, in this process (which keeps them)."""
    start = time.perf_counter()
    ll = landlock.restrict(**granted)
    middle = time.perf_counter()
    sc = seccomp.install("sandbox")
    end = time.perf_counter()
    assert ll.applied and sc.applied, (ll, sc)
    return [middle - start, end - middle, end - start]


def cost(scratch: str, runs: int = 20) -> dict:
    """Milliseconds to apply Landlock, seccomp and both: median and max over ``runs`` processes of each kind.

    "fresh": new small interpreters (as when the zygote applies the layers once, at its start);
    "forked": children forked from this process, torch loaded (per-probe layers), where the
    copy-on-write faults that follow a fork add their share.
    """
    granted = rules(scratch)
    code = ("import json, sys; sys.path.insert(0, sys.argv[2]); from grader.tests.layers_support import _timed; "
            "print(json.dumps(_timed(json.loads(sys.argv[1]))))")
    fresh = [json.loads(subprocess.run([sys.executable, "-I", "-c", code, json.dumps(granted), str(REPO)], check=True,
                                       capture_output=True, text=True).stdout) for _ in range(runs)]
    import torch  # noqa: F401 - the zygote's children are forks of a process that holds torch
    forked = [in_child(_timed, granted) for _ in range(runs)]
    return {kind: {name: {"median_ms": round(1000 * statistics.median(s[i] for s in samples), 2),
                          "max_ms": round(1000 * max(s[i] for s in samples), 2)}
                   for i, name in enumerate(("landlock", "seccomp", "both"))}
            for kind, samples in (("fresh", fresh), ("forked", forked))}


if __name__ == "__main__":
    from grader.tests import layers_support as module  # the Dataset must not come from __main__

    mode, folder = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    print(json.dumps(module.loaders(folder) if mode == "loaders" else module.cost(folder, runs)))
