"""Run pytest many times in fresh processes without paying for ``import torch`` each time.

The public-catch test runs the public tests once per wrong answer (about 80
runs). A new interpreter per run spends 2-3 s of CPU importing torch, numpy
and pytest before the first test; on 2 cores that was most of the test's
time. Here one server process imports them once, and every run is a fork of
it: a fresh process (nothing from one run reaches the next) that calls
``pytest.main`` and exits.

Protocol, one JSON object per line: the client writes ``{"args": [...],
"pythonpath": "...", "output": "..."}`` to the server's stdin; the server
forks, the child runs ``pytest.main(args)`` (with pytest-timeout, the one
plugin the public tests use, and no other installed plugin) in the server's
working directory with ``pythonpath`` first on ``sys.path`` and in ``PYTHONPATH`` (for spawn
workers) and its stdout and stderr in the file ``output``; the server answers
``{"returncode": N}`` once the child has exited.

Used only by this repository's tests, each module through a fixture of its
own (``with PreloadedPytest(REPO) as runner: yield runner``; not in a
conftest.py: the public tests once imported helpers with ``from conftest import``,
which a second conftest module would shadow). ``PreloadedPytest`` starts the
server (``python grader/tests/preloaded_pytest.py``) and restarts it after a
run that did not finish in time.
"""

from __future__ import annotations

import gc
import json
import os
import selectors
import signal
import subprocess
import sys
import time
import traceback
from pathlib import Path

HEAVY_MODULES = ("torch", "numpy", "pytest")


def _child(request: dict) -> int:
    """In the forked child: run pytest as the request says, return its exit status."""
    fd = os.open(request["output"], os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o644)
    os.dup2(fd, 1)
    os.dup2(fd, 2)
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)  # the server's stdin carries requests; the child must not read it
    sys.path.insert(0, request["pythonpath"])
    os.environ["PYTHONPATH"] = os.pathsep.join(filter(None, [request["pythonpath"], os.environ.get("PYTHONPATH")]))
    # Only the plugin the public tests use (their timeout marks): the others installed here (xdist, anyio, ...) would
    # be imported and their assertions rewritten anew in every run, half of a short run's time.
    os.environ["PYTEST_DISABLE_PLUGIN_AUTOLOAD"] = "1"
    import pytest

    return int(pytest.main(["-p", "pytest_timeout", *request["args"]]))


def serve() -> None:
    """The server loop: one request per stdin line, one fork per request, one answer line per request."""
    for module in HEAVY_MODULES:
        __import__(module)
    gc.freeze()  # a child's collections (pytest runs some at exit) then skip what the server imported
    print(json.dumps({"ready": True}), flush=True)
    for line in sys.stdin:
        request = json.loads(line)
        pid = os.fork()
        if pid == 0:
            try:
                code = _child(request)
            except BaseException:
                traceback.print_exc()
                code = 3
            sys.stdout.flush()
            sys.stderr.flush()
            os._exit(code)
        _, status = os.waitpid(pid, 0)
        print(json.dumps({"returncode": os.waitstatus_to_exitcode(status)}), flush=True)


class PreloadedPytest:
    """Client: ``run(args, pythonpath, timeout)`` -> (returncode, output); a stuck run is killed, the server restarted."""

    def __init__(self, cwd: Path):
        self.cwd = cwd
        self.proc: subprocess.Popen | None = None

    def _start(self, timeout: float) -> None:
        self.proc = subprocess.Popen([sys.executable, __file__], cwd=self.cwd, stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, start_new_session=True)
        self._answer(timeout)

    def _answer(self, timeout: float) -> dict:
        selector = selectors.DefaultSelector()
        selector.register(self.proc.stdout, selectors.EVENT_READ)
        ready = selector.select(timeout)
        selector.close()
        line = self.proc.stdout.readline() if ready else ""
        if not line:
            self.close()
            raise TimeoutError(f"no answer from the preloaded pytest server within {timeout:.0f} s")
        return json.loads(line)

    def run(self, args: list[str], pythonpath: Path, output: Path, timeout: float) -> tuple[int, str]:
        """Run ``pytest args`` in a fork of the server; TimeoutError if it takes longer than ``timeout``."""
        started = time.monotonic()
        if self.proc is None:
            self._start(timeout)
        self.proc.stdin.write(json.dumps({"args": args, "pythonpath": str(pythonpath), "output": str(output)}) + "\n")
        self.proc.stdin.flush()
        answer = self._answer(max(1.0, timeout - (time.monotonic() - started)))
        return answer["returncode"], output.read_text(errors="replace")

    def __enter__(self) -> PreloadedPytest:
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def close(self) -> None:
        """Stop the server and every process it started (they share its process group)."""
        if self.proc is None:
            return
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        self.proc.wait()
        self.proc = None


if __name__ == "__main__":
    here = os.path.dirname(os.path.realpath(__file__))
    sys.path[:] = [p for p in sys.path if p != here]  # run as a script: its folder is no import root
    serve()
