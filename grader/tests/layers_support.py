"""Helpers for the tests of the Landlock and seccomp layers (test_landlock.py, test_seccomp.py).

* :func:`in_child` runs a function in a freshly forked child, so that a layer
  (which can never be undone) dies with it; the child's result comes back as JSON.
* :class:`SquaresDataset` lives here, in an importable module, so that spawn
  and forkserver DataLoader workers can unpickle it.
* ``python -m grader.tests.layers_support loaders DIR`` applies both layers
  and runs DataLoader workers under fork, spawn and forkserver (prints JSON);
  ``python -m grader.tests.layers_support cost DIR [N]`` prints the median time,
  over N fresh processes, of applying both layers.
"""

from __future__ import annotations

import json
import os
import select
import statistics
import sys
import tempfile
import time
import traceback

from grader.paths import REPO
from grader.sandbox import landlock, seccomp
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


try:
    from torch.utils.data import Dataset
except ImportError:  # the layer tests do not need torch; only the DataLoader test does
    Dataset = object


class SquaresDataset(Dataset):
    """``i -> (i, i*i)`` as tensors, plus the worker's pid (to prove workers ran)."""

    def __len__(self) -> int:
        return 12

    def __getitem__(self, i):
        import torch
        return torch.tensor([i, i * i]), os.getpid()


def _batches(method: str | None) -> tuple[list, set]:
    import torch
    from torch.utils.data import DataLoader
    kwargs = {"num_workers": 2, "multiprocessing_context": method, "timeout": 60} if method else {}
    loader = DataLoader(SquaresDataset(), batch_size=4, **kwargs)
    batches, pids = [], set()
    for values, worker_pids in loader:
        assert isinstance(values, torch.Tensor)
        batches.append(values.tolist())
        pids.update(worker_pids.tolist())
    return batches, pids


def loaders(scratch: str) -> dict:
    """Apply both layers, then load with 0 workers and with 2 workers under each start method."""
    result = {"layers": apply_layers(scratch), "main_pid": os.getpid()}
    result["serial"], _pids = _batches(None)
    for method in ("fork", "spawn", "forkserver"):
        try:
            batches, pids = _batches(method)
            result[method] = {"batches": batches, "worker_pids": sorted(pids)}
        except Exception as exc:  # noqa: BLE001 - reported, the test says which method failed
            result[method] = {"error": f"{type(exc).__name__}: {exc}"}
    return result


def cost(scratch: str, runs: int = 20) -> dict:
    """Median, min and max seconds, over ``runs`` forked children, to apply Landlock, seccomp and both."""
    def timed():
        start = time.perf_counter()
        ll = landlock.restrict(**rules(scratch))
        middle = time.perf_counter()
        sc = seccomp.install("sandbox")
        end = time.perf_counter()
        assert ll.applied and sc.applied, (ll, sc)
        return [middle - start, end - middle, end - start]
    samples = [in_child(timed) for _ in range(runs)]
    return {name: {"median_ms": 1000 * statistics.median(s[i] for s in samples),
                   "max_ms": 1000 * max(s[i] for s in samples)} for i, name in enumerate(("landlock", "seccomp", "both"))}


if __name__ == "__main__":
    from grader.tests import layers_support as module  # the Dataset must not come from __main__

    mode, folder = sys.argv[1], sys.argv[2]
    runs = int(sys.argv[3]) if len(sys.argv) > 3 else 20
    print(json.dumps(module.loaders(folder) if mode == "loaders" else module.cost(folder, runs)))
