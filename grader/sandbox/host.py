"""The grading side of the sandbox: :class:`Sandbox` runs probes in a jailed zygote.

The grading process never imports a submission.  A :class:`Sandbox` copies
the allow-listed submission files into a fresh private folder, stages the
grader code the probes need beside them, and starts a long-lived zygote
(:mod:`grader.inside.zygote`) inside a bubblewrap jail
(:mod:`grader.sandbox.jail`).  The zygote preloads torch, numpy and the
probe modules once; each :meth:`Sandbox.run` forks a child of it that runs a
*probe* (a trusted grader function ``package.module:function``) against the
submission and sends back plain JSON data in a :class:`ProbeResult`.

Guarantees for every probe child
--------------------------------
* Jailed (``isolation.level == "jail"``, see :mod:`grader.isolation`): it sees the interpreter, the staged
  grader code and its own copied submission, read-only, plus private scratch,
  ``/tmp`` and ``/dev/shm``; no network, no other process, no file of this
  repository or of another grading.  As root, it runs under a uid of its own
  (unused by any account or process) without capabilities.
* Fresh session, stdin from /dev/null, stdout+stderr captured (at most
  ``output_limit`` characters come back), the result on its own pipe (capped).
* Scrubbed environment (:data:`PROBE_ENV`, plus HOME/TMPDIR = its scratch).
* rlimits: address space, processes, file size, CPU time (default: the
  probe's timeout + 5 s), no core files, 1024 open files; no_new_privs.
* A wall-clock timeout; after every probe everything it started is killed.

Without a jail the same process discipline applies; as root (with
CAP_SETUID) and with an interpreter other users can read, the probes still
run under a uid of their own, so they cannot read the grader's environment,
signal it or write its files; but they see the machine's world-readable
files and its network (``isolation.level == "weak"``, with the reason).
"""

from __future__ import annotations

import atexit
import json
import os
import secrets
import stat
import subprocess
import sys
import tempfile
import threading
import time
from pathlib import Path

from grader.isolation import Isolation, check_level, meets
from grader.registry import CONTRACT_FILES
from grader.sandbox import bytecode, identity
from grader.sandbox import jail as jail_module
from grader.sandbox.files import INIT_SOURCE, SUBMISSION_PACKAGE, copy_submission, stage_modules
from grader.sandbox.jail import Availability
from grader.sandbox.zygote_setup import zygote_argv, zygote_config, zygote_paths
from grader.shared import channel
from grader.shared.channel import ChannelError
from grader.shared.common import FORKSERVER_PROCESS_NAME, remove_tree
from grader.shared.messages import FRAME_REFUSED, Exit, Limits, ProbeResult, Ready, RunRequest, ShapeError, refused_frame_text
from grader.shared.proctree import descendants, kill_descendants
from grader.text import clean_text

START_TIMEOUT = 120.0  # seconds for the zygote to preload and report ready
ANSWER_GRACE = 30.0  # seconds beyond a probe's timeout before the zygote counts as hung
JAIL_MODES = ("auto", "off")

class SandboxError(RuntimeError):
    """The sandbox itself failed (no jail where one was required, a zygote that would not start)."""


class Sandbox:
    """Runs probes against one submission; see the module docstring.

    ``jail`` is "auto" (bubblewrap's namespaces where they can be made) or
    "off" (never, for comparisons and tests); ``kernel_layers`` applies
    Landlock and seccomp in the zygote (:mod:`grader.inside.layers`), with
    namespaces or without. ``min_isolation`` is the
    weakest level (:data:`grader.isolation.LEVELS`) the caller accepts:
    :meth:`start` raises :class:`SandboxError` below it. :attr:`isolation`
    says which layers held (final once the zygote has started).
    Use as a context manager or call :meth:`start` / :meth:`close`;
    :meth:`run` is thread-safe and runs one probe at a time.
    """

    def __init__(self, submission_dir, *, files=CONTRACT_FILES, preload=("torch", "numpy"),
                 probe_modules=(), memory_mb=4096, max_processes=128, file_size_mb=64,
                 cpu_seconds=None, output_limit=2000, jail="auto", min_isolation="weak", kernel_layers=True, gpu=False):
        if jail not in JAIL_MODES:
            raise ValueError(f"jail must be one of {JAIL_MODES}, not {jail!r}")
        self.min_isolation = check_level(min_isolation)
        self.submission_dir = Path(submission_dir)
        self.preload = tuple(preload)
        self.probe_modules = tuple(probe_modules)
        self.limits = Limits(memory_mb=int(memory_mb), max_processes=int(max_processes),
                             file_size_mb=int(file_size_mb),
                             cpu_seconds=None if cpu_seconds is None else int(cpu_seconds),
                             output_limit=int(output_limit))
        self.gpu = bool(gpu)
        self.kernel_layers = bool(kernel_layers)
        found = jail_module.availability() if jail == "auto" else Availability(False, "the jail was turned off (--jail off)")
        self.jailed = found.ok  # the zygote runs in bubblewrap's namespaces
        self._layers = {"namespaces": found.reason} if found.ok else {}
        self._missing = {} if found.ok else {"namespaces": found.reason}
        self.probe_uid = None  # set in _lay_out: probes run under a uid of their own where that is possible
        self._searchable: list[str] = []  # folders that uid was given search of (identity.grant_search)

        self._lock = threading.RLock()
        self._proc: subprocess.Popen | None = None
        self._zygote_host_pid: int | None = None
        self._req_w = self._resp_r = -1
        self._owner_pid = os.getpid()
        self._closed = False
        self.token = secrets.token_hex(8)  # marks the zygote's command line
        self.privileges_dropped = False
        self.zygote_start_s = 0.0
        self._requests = 0  # ids of RunRequests, unique per sandbox
        self.copied: tuple[str, ...] = ()  # the contract files copied into the jail (set in _lay_out)
        self.skipped: dict[str, str] = {}  # contract file -> why it was not copied ("missing", "is a symbolic link...")

        self.root = Path(tempfile.mkdtemp(prefix="grader-sandbox-"))
        self.code_dir = self.root / "code"
        self.lib_dir = self.root / "lib"
        try:
            self._lay_out(tuple(files))
        except BaseException:
            identity.revoke_search(self._searchable, self.probe_uid)
            remove_tree(self.root)
            raise
        self.isolation = Isolation.from_layers(self._layers, self._missing)
        atexit.register(self.close)

    def _lay_out(self, files: tuple[str, ...]) -> None:
        """code/submission (the copy, read-only), lib/ (staged grader code) and, without a jail,
        scratch/ and capture/ (inside a jail these are private memory-backed folders); the probes' uid."""
        package = self.code_dir / SUBMISSION_PACKAGE
        package.mkdir(parents=True)
        (package / "__init__.py").write_text(INIT_SOURCE)
        self.copied, self.skipped = copy_submission(self.submission_dir, files, package,
                                                    self.limits.file_size_mb << 20)
        for folder in (package, self.code_dir):
            os.chmod(folder, 0o555)
        stage_modules(("grader.inside.zygote", "grader.shared.common", *self.probe_modules), self.lib_dir)
        if not self.jailed:
            (self.root / "scratch").mkdir(mode=0o711)
            (self.root / "capture").mkdir(mode=0o700)
            os.chmod(self.root, 0o711)  # a private uid must reach code/, lib/ and scratch/ (mkdtemp made it 0700)
        if why_not := self._why_no_private_uid():
            self._missing["uid"] = why_not
        else:
            self.probe_uid = self.probe_uid or identity.unused_uid()
            self._layers["uid"] = "probes run under a uid of their own, without capabilities" + (
                f" (given search of {', '.join(self._searchable)} by an ACL entry of its own, removed at the end)"
                if self._searchable else "")

    def _why_no_private_uid(self) -> str:
        """'' if probes can run under a uid of their own here, else why not. Where the interpreter lives under a
        folder others cannot search (a pyenv in root's 0700 home), that uid alone is given search of it."""
        if not identity.can_switch_uid():
            return "the grader is not root with CAP_SETUID, CAP_SETGID and CAP_CHOWN"
        if self.jailed:
            return ""
        closed = identity.closed_to_others(self._weak_paths())
        if not closed:
            return ""
        uid = identity.unused_uid()
        if why := identity.grant_search(closed, uid):
            return f"{closed[0]} cannot be reached by other users, and {why} (make the interpreter world-readable)"
        self.probe_uid, self._searchable = uid, closed
        return ""

    def _weak_paths(self) -> list[str]:
        """What probes outside a jail must reach: the interpreter and the staged code."""
        return [*jail_module.interpreter_paths(), str(self.lib_dir), str(self.code_dir), str(self.root / "scratch")]

    # ------------------------------------------------------------------ lifecycle

    def __enter__(self) -> Sandbox:
        try:
            self.start()
        except BaseException:
            self.close()  # __exit__ does not run when __enter__ fails
            raise
        return self

    def __exit__(self, *exc_info) -> None:
        self.close()

    @property
    def zygote_pid(self) -> int | None:
        """Host pid of the running zygote, or None."""
        proc = self._proc
        return self._zygote_host_pid if proc is not None and proc.poll() is None else None

    def live_descendants(self) -> list[int]:
        """Pids of live processes below the zygote, but for the shared forkserver; [] between probes."""
        pid = self.zygote_pid
        return [p for p in descendants(pid) if not _is_forkserver(p, pid)] if pid else []

    def start(self) -> None:
        """Start the zygote unless it is running; raises :class:`SandboxError`."""
        with self._lock:
            if self._closed:
                raise SandboxError("sandbox is closed")
            if self.zygote_pid is not None:
                return
            self._stop_zygote()
            if self.jailed:
                self._check_bind_sources()
            bytecode.ensure(say=lambda line: print(f"grader: {line}", file=sys.stderr, flush=True))
            started = time.monotonic()
            paths = zygote_paths(jailed=self.jailed, root=self.root, lib_dir=self.lib_dir, code_dir=self.code_dir)
            cfg = zygote_config(paths, preload=self.preload, probe_modules=self.probe_modules, limits=self.limits,
                                uid=self.probe_uid, kernel_layers=self.kernel_layers, gpu=self.gpu)
            req_r, self._req_w = os.pipe()
            self._resp_r, resp_w = os.pipe()
            with open(self.root / "zygote.log", "ab") as log:
                try:
                    self._proc = subprocess.Popen(
                        zygote_argv(cfg, req_r, resp_w, token=self.token, jailed=self.jailed, lib_dir=self.lib_dir,
                                    code_dir=self.code_dir, gpu=self.gpu), pass_fds=(req_r, resp_w), env=cfg.env,
                        cwd=self.root, stdin=subprocess.DEVNULL, stdout=log, stderr=subprocess.STDOUT)
                finally:
                    os.close(req_r)
                    os.close(resp_w)
            try:
                channel.send(self._req_w, cfg, time.monotonic() + 10)
                ready = channel.receive(self._resp_r, time.monotonic() + START_TIMEOUT, 1 << 20, Ready)
            except ChannelError as exc:
                ready = Ready(ok=False, error=f"no answer from the zygote ({exc})")
            if not ready.ok:
                self._stop_zygote()
                raise SandboxError(f"sandbox zygote failed to start: {ready.error}\n"
                                   f"{ready.traceback or self._log_tail()}")
            self._zygote_host_pid = self._find_zygote()
            self.privileges_dropped = ready.dropped
            self.zygote_start_s = time.monotonic() - started
            self._layers.update(ready.layers)
            self._missing.update(ready.missing)
            self.isolation = Isolation.from_layers(self._layers, self._missing)
            if not meets(self.isolation.level, self.min_isolation):
                self._stop_zygote()
                raise SandboxError(f"isolation {self.isolation.level} is below the required {self.min_isolation}: "
                                   f"{self.isolation.reason}")

    def _check_bind_sources(self) -> None:
        """Refuse to set up a jail whose bound folders hold anything but what this grader made for this sandbox.

        bubblewrap's setup must never meet a path student code could have written (CVE-2026-87766 follows a
        planted symlink out of the new root): every other destination lies in the fresh root bwrap makes itself,
        and the two host folders it binds, ``lib/`` and ``code/``, are made here by the grader for this sandbox,
        read-only inside the jail. A restart of the zygote binds them again, so each start checks that they still
        hold only folders and regular files owned by this process and writable by no one else (no symlink, FIFO or
        device), and raises :class:`SandboxError` otherwise.
        """
        me = os.geteuid()
        for top in (self.lib_dir, self.code_dir):
            for folder, names, files in os.walk(top):
                for path in (folder, *(os.path.join(folder, n) for n in (*names, *files))):
                    info = os.lstat(path)
                    if not (stat.S_ISDIR(info.st_mode) or stat.S_ISREG(info.st_mode)) or info.st_uid != me \
                            or info.st_mode & 0o022:
                        raise SandboxError(f"{path} is not a folder or file this grader made for the sandbox (mode "
                                           f"{stat.filemode(info.st_mode)}, owner {info.st_uid}): the jail is not set up "
                                           "over a path other code could have written")

    def _find_zygote(self) -> int:
        """The zygote's host pid: bwrap's first descendant that runs Python (or the process itself)."""
        if not self.jailed:
            return self._proc.pid
        for pid in descendants(self._proc.pid):
            try:
                argv0 = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0", 1)[0]
            except OSError:
                continue
            if argv0 == os.fsencode(sys.executable):
                return pid
        raise SandboxError("the jailed zygote reported ready but cannot be found")

    def _log_tail(self) -> str:
        try:
            return (self.root / "zygote.log").read_text(errors="replace")[-3000:]
        except OSError:
            return ""

    def _stop_zygote(self, polite: bool = True) -> None:
        """Kill the zygote (and its jail) and everything below it; close our pipe ends."""
        proc, self._proc = self._proc, None
        if proc is not None and os.getpid() == self._owner_pid:
            if polite and proc.poll() is None:
                try:  # polite: the zygote kills its own descendants
                    channel.send(self._req_w, Exit(), time.monotonic() + 1)
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
        """Kill the zygote and all its descendants, remove the temp folder.

        Idempotent, safe from atexit, never raises: a folder that cannot be
        removed is reported on stderr.  In a forked copy of the grading
        process it only closes that copy's file descriptors.
        """
        with self._lock:
            if self._closed:
                return
            self._closed = True
            try:
                self._stop_zygote()
            finally:
                atexit.unregister(self.close)
                if os.getpid() == self._owner_pid:
                    if self._searchable:
                        identity.revoke_search(self._searchable, self.probe_uid)
                    try:
                        remove_tree(self.root)
                    except OSError as exc:
                        print(f"grader: could not remove the sandbox folder {self.root}: {exc}",
                              file=sys.stderr, flush=True)

    # ------------------------------------------------------------------ probes

    def run(self, probe: str, args: dict | None = None, timeout: float = 30.0) -> ProbeResult:
        """Run ``probe`` ("package.module:function") with ``**args`` in a fresh child.

        ``args`` must be JSON-serialisable (a TypeError is raised here
        otherwise).  Always returns a :class:`ProbeResult`, bounded and with
        cleaned text, whatever the zygote sent; never hangs: if the zygote
        dies, stops answering or answers out of turn (another request's id, a
        malformed frame), it is restarted and the request is reported as
        "crashed" (or "timeout").  An answer over a shape limit
        (:data:`grader.shared.messages.FRAME_SHAPE`), refused unread by the
        zygote (a child's frame) or here (the zygote's), is an "error" of type
        :data:`~grader.shared.messages.FRAME_REFUSED` that says which limit,
        and the zygote is restarted.  An exception raised while waiting (a
        timeout of the caller's, say) stops the zygote before it propagates,
        so its late answer is never read as the answer to the next request.
        """
        module, sep, func = probe.partition(":")
        if not (sep and module and func.isidentifier()):
            raise ValueError(f"probe must look like 'package.module:function', not {probe!r}")
        json.dumps(dict(args or {}))  # raise TypeError here for non-JSON args
        cap = self.limits.result_cap + 8 * self.limits.output_limit + (1 << 20)
        with self._lock:
            self.start()
            self._requests += 1
            request = RunRequest(id=self._requests, probe=probe, args=dict(args or {}), timeout=float(timeout))
            try:
                channel.send(self._req_w, request, time.monotonic() + 10)
                result = channel.receive(self._resp_r, time.monotonic() + timeout + ANSWER_GRACE, cap, ProbeResult)
            except ChannelError as exc:
                if isinstance(exc.__cause__, ShapeError):
                    self._stop_zygote(polite=False)  # the next run() starts a fresh one
                    return ProbeResult("error", error_type=FRAME_REFUSED, error=clean_text(refused_frame_text(str(exc))))
                return self._zygote_failed(exc)
            except BaseException:
                self._stop_zygote(polite=False)  # the next run() starts a fresh one
                raise
            if result.request_id != request.id:
                return self._zygote_failed(ChannelError(f"answer to request {result.request_id} while waiting "
                                                        f"for request {request.id}"))
            if result.error_type == FRAME_REFUSED:
                self._stop_zygote(polite=False)  # it read an answer over a limit: the next run() starts a fresh one
        result = result.bounded()
        for name in ("error", "error_type", "traceback", "output"):
            setattr(result, name, clean_text(getattr(result, name)))
        return result

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


def _is_forkserver(pid: int, zygote: int) -> bool:
    """Whether ``pid`` is the zygote's shared forkserver (a direct child with its process name)."""
    try:
        stat = Path(f"/proc/{pid}/stat").read_bytes()
    except OSError:
        return False
    name, after = stat[stat.find(b"(") + 1:stat.rfind(b")")], stat[stat.rfind(b")") + 2:].split()
    return name == FORKSERVER_PROCESS_NAME and int(after[1]) == zygote
