"""Run untrusted student code in child processes and get back plain data.

The grading process never imports a submission.  A :class:`Sandbox` copies
the allow-listed submission files into a fresh directory and starts a
long-lived *zygote* (``python -I -B``, see :mod:`grader._zygote`) that
preloads torch, numpy and the grader's probe modules once.  Each
:meth:`Sandbox.run` asks the zygote to fork a child that runs a *probe* -- a
trusted grader function ``package.module:function`` -- which may import
student code with :func:`load_submission`; the probe's return value comes back
as JSON data in a :class:`ProbeResult`.

Guarantees for every probe child
--------------------------------
* Fresh session (its own process group), stdin from /dev/null, stdout and
  stderr captured (at most ``output_limit`` characters come back), the result
  on a separate pipe (capped at 16 MB; garbage there gives "crashed").
* Scrubbed environment: only PATH, LANG, USER/LOGNAME ("sandbox"), HOME/TMPDIR (a per-run scratch dir),
  PYTHONHASHSEED, OMP/MKL_NUM_THREADS, PYTHONDONTWRITEBYTECODE and
  PYTHONNOUSERSITE -- nothing is inherited from the grader's environment.
* Limits (setrlimit, per process): address space ``memory_mb``, processes
  ``max_processes`` (counted per uid), file size ``file_size_mb`` (SIGXFSZ
  ignored, so long writes fail with EFBIG), CPU ``cpu_seconds`` (default: the
  run's timeout + 5 s), no core files, 1024 open files; no_new_privs is set;
  oom_score_adj 1000.
* Wall-clock ``timeout``: the child and everything it started are SIGKILLed.
  After *every* probe the zygote (a child subreaper, running one probe at a
  time) kills all of its remaining descendants, including processes that
  setsid()/double-fork to detach, and DataLoader workers left alive.
* Privilege drop: when the grader runs as root and ``drop_privileges`` is
  "auto" or True, the child switches to ``user`` after setting its limits.
  The default, "private", is a uid of its own for each sandbox (unused by
  any account or process, group ``nogroup``), so parallel gradings never
  share a process limit or signal each other; "nobody" or any account name
  also works.  It then cannot signal or ptrace the grader or the
  zygote, read their ``/proc/<pid>/environ``, or write files the grader
  created (the submission copy is read-only to it; only its scratch dir is
  writable), and RLIMIT_NPROC is enforced.  If the Python installation is
  not reachable by that user (e.g. a pyenv Python under ``/root``, mode
  0700), the zygote enters a private mount namespace and hides the blocking
  directory behind a tmpfs that bind-mounts only the needed entries (needs
  CAP_SYS_ADMIN; nothing changes outside the zygote's namespace).  When that
  is impossible, "auto" silently runs without the drop (see
  ``Sandbox.privileges_dropped`` / ``Sandbox.privilege_note``) and True raises
  :class:`SandboxError`.

Weaker guarantees (documented limitations)
------------------------------------------
* Not root (or the drop is impossible): children run as the grader's uid.
  They could then read ``/proc/<grader>/environ`` (the zygote's own env is
  scrubbed, but the grading process's is not), signal the zygote or the
  grader, write anything the grader can write, and RLIMIT_NPROC counts all of
  that user's processes.  Run the grader as root (or under sudo) in CI.
* With ``user="nobody"`` the dropped uid is shared: ``nobody``-owned
  processes of other sandboxes on the same machine count towards
  RLIMIT_NPROC and could interfere with each other (the default "private"
  uid avoids this). Files a probe writes outside its scratch dir (``/tmp``,
  ``/dev/shm``) are not removed.
* Limits are per process; a probe that forks up to ``max_processes`` children
  may use that many times ``memory_mb`` (no cgroup is used).
* Integrity flags are best effort: student code runs in the same process as
  the probe and can, with effort, forge a result (see
  :mod:`grader.sandbox_child`).
* If the zygote itself is SIGKILLed from outside, its current probe child dies
  with it (PDEATHSIG) but grandchildren that detached may survive.
* ``PYTHONHASHSEED=0`` is exported, but ``python -I`` ignores it: str hashes
  in the zygote and its forks are randomised per zygote.
"""

from __future__ import annotations

import atexit
import importlib.util
import json
import os
import pwd
import secrets
import shutil
import stat
import subprocess
import sys
import tempfile
import threading
import time
import warnings
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from grader.sandbox_child import INIT_SOURCE, SUBMISSION_PACKAGE, load_submission
from grader.sandbox_proc import (ChannelError, descendants, kill_descendants, recv_msg,
                                 send_msg)

__all__ = ["CONTRACT_FILES", "ProbeResult", "Sandbox", "SandboxError", "load_submission"]

CONTRACT_FILES = ("collate.py", "sharding.py", "seeding.py", "bucketing.py", "tokens.py")

RESULT_CAP = 16 << 20  # bytes of encoded probe result
START_TIMEOUT = 120.0  # seconds for the zygote to preload and report ready
ANSWER_GRACE = 30.0  # seconds beyond a probe's timeout before the zygote counts as hung

_GRADER_ROOT = str(Path(__file__).resolve().parent.parent)
_BOOT = ("import sys; sys.path.insert(0, sys.argv[1]); "
         "from grader._zygote import main; main(int(sys.argv[2]), int(sys.argv[3]))")


class SandboxError(RuntimeError):
    """The sandbox itself failed (zygote would not start); not a student's fault."""


@dataclass
class ProbeResult:
    """Outcome of one probe run.

    status: "ok" | "error" (the probe raised) | "timeout" | "crashed" (died
    without a result, or wrote garbage).  ``data`` is the JSON value the
    probe returned (None unless ok); ``error`` is "ExcType: message" for
    "error" and a description of the death for "crashed"/"timeout";
    ``error_type`` and ``traceback`` (last 15 lines) are set for "error".
    ``output`` is the child's stdout+stderr, cut to ``output_limit``
    characters.  ``flags`` lists integrity findings such as
    "replaced torch.equal during probe grader.probes.collate:basic".
    """

    status: str
    data: Any = None
    error: str = ""
    error_type: str = ""
    traceback: str = ""
    output: str = ""
    duration_s: float = 0.0
    flags: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return self.status == "ok"


def _is_plain_file_name(name: str) -> bool:
    return (bool(name) and "/" not in name and "\0" not in name
            and not name.startswith(".") and name != "__init__.py")


def _copy_submission(src_dir: Path, names: tuple[str, ...], dest: Path,
                     max_bytes: int) -> tuple[tuple[str, ...], dict[str, str]]:
    """Copy the regular files ``names`` from ``src_dir`` into ``dest``.

    Symlinks are followed only when they resolve to a regular file inside
    ``src_dir``.  Returns (copied names, {skipped name: reason}).
    """
    copied, skipped = [], {}
    real_src = os.path.realpath(src_dir)
    for name in names:
        if not _is_plain_file_name(name):
            raise ValueError(f"not a plain file name: {name!r}")
        path = os.path.join(src_dir, name)
        try:
            info = os.lstat(path)
            if stat.S_ISLNK(info.st_mode):
                path = os.path.realpath(path)
                if os.path.commonpath([real_src, path]) != real_src:
                    skipped[name] = "symlink pointing outside the submission"
                    continue
                info = os.stat(path)
        except OSError:
            skipped[name] = "missing"
            continue
        if not stat.S_ISREG(info.st_mode):
            skipped[name] = "not a regular file"
            continue
        if info.st_size > max_bytes:
            skipped[name] = f"larger than {max_bytes} bytes"
            continue
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW)
        with os.fdopen(fd, "rb") as fh:
            content = fh.read(max_bytes + 1)
        (dest / name).write_bytes(content)
        os.chmod(dest / name, 0o644)
        copied.append(name)
    return tuple(copied), skipped


def _module_root(module: str) -> str | None:
    """Directory that must be on sys.path for ``module`` to be importable."""
    top = module.split(".")[0]
    spec = importlib.util.find_spec(top)
    if spec is None:
        return None
    if spec.submodule_search_locations:
        return str(Path(list(spec.submodule_search_locations)[0]).parent)
    return str(Path(spec.origin).parent) if spec.origin else None


NOGROUP = 65534
PRIVATE_UIDS = range(1_000_000, 2_000_000)  # far above any account a distribution creates


def _uids_in_use() -> set[int]:
    """Real uids of the running processes."""
    uids = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/status", "rb") as status:
                    for line in status:
                        if line.startswith(b"Uid:"):
                            uids.add(int(line.split()[1]))
                            break
            except OSError:
                continue
    return uids


def _unused_uid() -> int:
    """A uid no account has and no process runs as: the sandbox's own."""
    busy = _uids_in_use() if os.path.isdir("/proc") else set()
    while True:
        uid = PRIVATE_UIDS[secrets.randbelow(len(PRIVATE_UIDS))]
        try:
            pwd.getpwuid(uid)
        except KeyError:
            if uid not in busy:
                return uid


def _remove_tree(path: Path) -> None:
    def _retry_writable(func, failed_path, _exc_info):
        try:
            os.chmod(os.path.dirname(failed_path), 0o700)
            func(failed_path)
        except OSError:
            pass
    shutil.rmtree(path, onerror=_retry_writable)


class Sandbox:
    """Runs probes against one submission; see the module docstring.

    Use as a context manager or call :meth:`start` / :meth:`close`.
    :meth:`run` is thread-safe but runs one probe at a time.
    """

    def __init__(self, submission_dir, *, files=CONTRACT_FILES, preload=("torch", "numpy"),
                 probe_modules=(), memory_mb=4096, max_processes=128, file_size_mb=64,
                 cpu_seconds=None, output_limit=2000, drop_privileges="auto",
                 user="private"):
        if drop_privileges not in ("auto", True, False):
            raise ValueError("drop_privileges must be 'auto', True or False")
        self.submission_dir = Path(submission_dir)
        self.preload = tuple(preload)
        self.probe_modules = tuple(probe_modules)
        self.memory_mb = int(memory_mb)
        self.max_processes = int(max_processes)
        self.file_size_mb = int(file_size_mb)
        self.cpu_seconds = None if cpu_seconds is None else int(cpu_seconds)
        self.output_limit = int(output_limit)
        self._drop = ("never" if drop_privileges is False or os.geteuid() != 0
                      else "required" if drop_privileges is True else "auto")
        self._uid, self._gid = self._lookup_user(user)

        self._lock = threading.RLock()
        self._proc: subprocess.Popen | None = None
        self._req_w = self._resp_r = -1
        self._owner_pid = os.getpid()
        self._closed = False
        self.token = secrets.token_hex(8)  # marks the zygote's command line
        self.privileges_dropped = False
        self.privilege_note = ""
        self.zygote_start_s = 0.0

        self._root = Path(tempfile.mkdtemp(prefix="grader-sandbox-"))
        self.code_dir = self._root / "code"
        self._scratch_root = self._root / "scratch"
        try:
            self._lay_out_dirs(tuple(files))
        except BaseException:
            _remove_tree(self._root)
            raise
        atexit.register(self.close)

    def _lay_out_dirs(self, files: tuple[str, ...]) -> None:
        """Create code/ (read-only copy), scratch/ (per-run dirs) and private dirs.

        Permissions matter when privileges are dropped: the sandbox user may
        traverse the root and scratch/ but not list them, read code/, and
        not enter capture/ or stage/.
        """
        os.chmod(self._root, 0o711)
        package = self.code_dir / SUBMISSION_PACKAGE
        package.mkdir(parents=True)
        os.chmod(self.code_dir, 0o755)
        os.chmod(package, 0o755)
        (package / "__init__.py").write_text(INIT_SOURCE)
        os.chmod(package / "__init__.py", 0o644)
        self.copied, self.skipped = _copy_submission(
            self.submission_dir, files, package, self.file_size_mb << 20)
        self._scratch_root.mkdir()
        os.chmod(self._scratch_root, 0o711)
        for private in ("capture", "stage"):
            (self._root / private).mkdir(mode=0o700)

    @staticmethod
    def _lookup_user(user: str) -> tuple[int, int]:
        if user == "private":
            return _unused_uid(), NOGROUP
        try:
            entry = pwd.getpwnam(user)
            return entry.pw_uid, entry.pw_gid
        except KeyError:
            if user == "nobody":
                return 65534, 65534
            raise ValueError(f"no such user: {user!r}") from None

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> Sandbox:
        self.start()
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    @property
    def zygote_pid(self) -> int | None:
        """Pid of the running zygote, or None."""
        proc = self._proc
        return proc.pid if proc is not None and proc.poll() is None else None

    def live_descendants(self) -> list[int]:
        """Pids of live (non-zombie) processes below the zygote; [] between probes."""
        pid = self.zygote_pid
        return descendants(pid) if pid else []

    def _zygote_config(self) -> dict:
        bin_dir = os.path.dirname(sys.executable)
        scratch = str(self._scratch_root)
        env = {"PATH": f"{bin_dir}:/usr/local/bin:/usr/bin:/bin", "LANG": "C.UTF-8", "USER": "sandbox", "LOGNAME": "sandbox",
               "HOME": scratch, "TMPDIR": scratch, "PYTHONHASHSEED": "0",
               "OMP_NUM_THREADS": "1", "MKL_NUM_THREADS": "1",
               "PYTHONDONTWRITEBYTECODE": "1", "PYTHONNOUSERSITE": "1"}
        roots = [_GRADER_ROOT]
        for module in self.probe_modules:
            root = _module_root(module)
            if root and root not in roots:
                roots.append(root)
        return {"code_dir": str(self.code_dir), "scratch_root": scratch,
                "capture_dir": str(self._root / "capture"),
                "stage_dir": str(self._root / "stage"),
                "sys_path": roots, "preload": list(self.preload),
                "probe_modules": list(self.probe_modules),
                "memory_mb": self.memory_mb, "max_processes": self.max_processes,
                "file_size_mb": self.file_size_mb, "cpu_seconds": self.cpu_seconds,
                "output_limit": self.output_limit, "result_cap": RESULT_CAP,
                "drop": self._drop, "uid": self._uid, "gid": self._gid, "env": env}

    def start(self) -> None:
        """Start the zygote unless it is running; raises :class:`SandboxError`."""
        with self._lock:
            if self._closed:
                raise SandboxError("sandbox is closed")
            if self.zygote_pid is not None:
                return
            self._stop_zygote()
            started = time.monotonic()
            cfg = self._zygote_config()
            req_r, self._req_w = os.pipe()
            self._resp_r, resp_w = os.pipe()
            log = open(self._root / "zygote.log", "ab")
            try:
                self._proc = subprocess.Popen(
                    [sys.executable, "-I", "-B", "-c", _BOOT, _GRADER_ROOT, str(req_r),
                     str(resp_w), f"--grader-sandbox={self.token}"],
                    pass_fds=(req_r, resp_w), env=cfg["env"], cwd=self._root,
                    stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
            finally:
                log.close()
                os.close(req_r)
                os.close(resp_w)
            try:
                send_msg(self._req_w, cfg, time.monotonic() + 10)
                ready = recv_msg(self._resp_r, time.monotonic() + START_TIMEOUT, 1 << 20)
            except ChannelError as exc:
                ready = {"ready": False, "error": f"no answer from the zygote ({exc})"}
            if not isinstance(ready, dict) or not ready.get("ready"):
                self._stop_zygote()
                detail = ready.get("traceback") or self._log_tail()
                raise SandboxError(f"sandbox zygote failed to start: {ready.get('error')}\n"
                                   f"{detail}")
            self.privileges_dropped = bool(ready["dropped"])
            self.privilege_note = ready.get("note", "")
            self.zygote_start_s = time.monotonic() - started
            if self._drop == "auto" and os.geteuid() == 0 and not self.privileges_dropped:
                warnings.warn(f"sandbox runs probes as root: {self.privilege_note}",
                              RuntimeWarning, stacklevel=2)

    def _log_tail(self) -> str:
        try:
            return (self._root / "zygote.log").read_text(errors="replace")[-3000:]
        except OSError:
            return ""

    def _stop_zygote(self, polite: bool = True) -> None:
        """Kill the zygote and everything below it; close our pipe ends.

        ``polite`` first asks the zygote to clean up and exit by itself.
        """
        proc, self._proc = self._proc, None
        if proc is not None and os.getpid() == self._owner_pid:
            if polite and proc.poll() is None:
                try:  # polite: the zygote kills its own descendants
                    send_msg(self._req_w, {"cmd": "exit"}, time.monotonic() + 1)
                    proc.wait(timeout=3)
                except (ChannelError, subprocess.TimeoutExpired):
                    pass
            if proc.poll() is None:
                # Descendants first: while the zygote lives, orphans stay below it.
                kill_descendants(proc.pid, reap=False, timeout=5)
                proc.kill()
                proc.wait()
        for fd in (self._req_w, self._resp_r):
            if fd >= 0:
                os.close(fd)
        self._req_w = self._resp_r = -1

    def close(self) -> None:
        """Kill the zygote and all its descendants, remove the temp dirs.

        Idempotent; safe from atexit.  In a forked copy of the grading
        process it only closes that copy's file descriptors.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
            self._stop_zygote()
            if os.getpid() == self._owner_pid:
                _remove_tree(self._root)
            atexit.unregister(self.close)

    # ------------------------------------------------------------------ probes

    def run(self, probe: str, args: dict | None = None, timeout: float = 30.0) -> ProbeResult:
        """Run ``probe`` ("package.module:function") with ``**args`` in a fresh child.

        ``args`` must be JSON-serialisable (a TypeError is raised here
        otherwise).  Always returns a :class:`ProbeResult`; never hangs: if
        the zygote dies or stops answering, it is killed and restarted and the
        in-flight request is reported as "crashed" (or "timeout").
        """
        module, sep, func = probe.partition(":")
        if not (sep and module and func.isidentifier()):
            raise ValueError(f"probe must look like 'package.module:function', not {probe!r}")
        request = {"cmd": "run", "probe": probe, "args": dict(args or {}),
                   "timeout": float(timeout)}
        json.dumps(request)  # raise TypeError here for non-JSON args
        with self._lock:
            self.start()
            try:
                send_msg(self._req_w, request, time.monotonic() + 10)
                answer = recv_msg(self._resp_r, time.monotonic() + timeout + ANSWER_GRACE,
                                  RESULT_CAP + 8 * self.output_limit + (1 << 20))
            except ChannelError as exc:
                return self._zygote_failed(exc)
            return ProbeResult(**answer)

    def _zygote_failed(self, exc: Exception) -> ProbeResult:
        proc = self._proc
        try:  # its pipe closes an instant before it can be reaped
            died = proc is None or proc.wait(timeout=1) is not None
        except subprocess.TimeoutExpired:
            died = False
        how = (f"the sandbox zygote died ({proc.returncode if proc else '?'})" if died
               else f"the sandbox zygote stopped answering ({exc})")
        self._stop_zygote(polite=False)
        try:
            self.start()  # restart once, so the next probe finds a zygote
        except SandboxError as start_exc:
            how += f"; restart failed: {start_exc}"
        else:
            how += "; restarted it"
        return ProbeResult(status="crashed" if died else "timeout", error=how)
