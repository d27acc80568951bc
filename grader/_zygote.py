"""The sandbox zygote: a long-lived ``python -I -B`` process that preloads
torch/numpy and the probe modules once, then forks one locked-down child per
probe request.  Started and spoken to only by :class:`grader.sandbox.Sandbox`.

Protocol (framed JSON, see :mod:`grader.sandbox_proc`) over two pipes whose
fd numbers are given on the command line:

1. grader -> zygote: the configuration dict (see ``Sandbox._zygote_config``);
   zygote -> grader: ``{"ready": true, ...}`` or ``{"ready": false, "error": ...}``.
2. grader -> zygote ``{"cmd": "run", "probe", "args", "timeout"}``;
   zygote -> grader: the :class:`~grader.sandbox.ProbeResult` fields.
3. ``{"cmd": "exit"}`` or end-of-file on the request pipe: the zygote kills
   every descendant and exits.

The zygote runs one probe at a time and is a child subreaper, so after each
probe *every* remaining descendant is garbage and is SIGKILLed; processes that
double-fork or setsid to detach are reparented to the zygote and caught too.
It never imports student code itself.
"""

from __future__ import annotations

import ctypes
import importlib
import json
import os
import resource
import select
import signal
import sys
import tempfile
import time
import traceback
from dataclasses import dataclass

from grader.sandbox_proc import (ChannelError, describe_wait_status, kill_descendants,
                                 parse_frame, recv_msg, send_msg)

RESULT_FD = 3  # the child's result pipe is moved to this fd number
_MAX_REQUEST = 64 << 20

_PR_SET_PDEATHSIG = 1
_PR_SET_CHILD_SUBREAPER = 36
_PR_SET_NO_NEW_PRIVS = 38
_CLONE_NEWNS = 0x00020000
_MS_NOSUID, _MS_NODEV, _MS_BIND, _MS_MOVE = 0x2, 0x4, 0x1000, 0x2000
_MS_REC, _MS_PRIVATE = 0x4000, 0x40000

_libc = ctypes.CDLL(None, use_errno=True)


def _checked(ret: int, what: str) -> None:
    if ret != 0:
        err = ctypes.get_errno()
        raise OSError(err, f"{what}: {os.strerror(err)}")


def _prctl(option: int, value: int) -> None:
    _checked(_libc.prctl(option, ctypes.c_ulong(value), 0, 0, 0), f"prctl({option})")


def _mount(source: str | None, target: str, fstype: str | None, flags: int,
           data: str | None = None) -> None:
    enc = (lambda s: None if s is None else s.encode())
    _checked(_libc.mount(enc(source), enc(target), enc(fstype), ctypes.c_ulong(flags),
                         enc(data)), f"mount {target}")


@dataclass
class _State:
    """Everything a probe child needs, fixed when the zygote starts."""

    cfg: dict
    req_fd: int
    resp_fd: int
    uid: int | None  # None: no privilege drop
    gid: int | None
    result_cap: int


# --------------------------------------------------------------------------
# start-up: privilege check, mount view, preload


def _runtime_paths(cfg: dict) -> dict[str, int]:
    """Real paths the sandboxed user must be able to use, with the access
    mode it needs (interpreter, stdlib, site-packages, grader code and the
    submission copy must be readable; the scratch root only searchable)."""
    readable = [sys.executable, sys.prefix, sys.base_prefix, sys.exec_prefix,
                sys.base_exec_prefix, *sys.path, cfg["code_dir"]]
    needed = {}
    for path in readable:
        if path and os.path.exists(path):
            real = os.path.realpath(path)
            needed[real] = os.R_OK | (os.X_OK if os.path.isdir(real) else 0)
    needed[os.path.realpath(cfg["scratch_root"])] = os.X_OK
    return needed


def _access_report(paths: dict[str, int], uid: int, gid: int) -> dict:
    """Fork, become ``uid``/``gid`` and report which paths are unreachable.

    Returns ``{"blocked": {dir: [entry, ...]}, "unreadable": [path, ...]}``:
    ``blocked`` maps the topmost directory the user cannot search to the
    entries below it that are needed; ``unreadable`` lists reachable paths
    whose own permissions deny access (no mount trick fixes those).
    """
    read_fd, write_fd = os.pipe()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(read_fd)
            os.setgroups([])
            os.setresgid(gid, gid, gid)
            os.setresuid(uid, uid, uid)
            blocked: dict[str, list[str]] = {}
            unreadable = []
            for path, mode in paths.items():
                parts = path.split("/")
                for i in range(2, len(parts) + 1):
                    try:
                        os.stat("/".join(parts[:i]))
                    except PermissionError:
                        parent = "/".join(parts[:i - 1]) or "/"
                        names = blocked.setdefault(parent, [])
                        if parts[i - 1] not in names:
                            names.append(parts[i - 1])
                        break
                else:
                    if not os.access(path, mode):
                        unreadable.append(path)
            os.write(write_fd, json.dumps({"blocked": blocked,
                                           "unreadable": unreadable}).encode())
        finally:
            os._exit(0)
    os.close(write_fd)
    data = b""
    while chunk := os.read(read_fd, 1 << 16):
        data += chunk
    os.close(read_fd)
    os.waitpid(pid, 0)
    return json.loads(data)


def _overlay(directory: str, entries: list[str], stage_root: str) -> None:
    """Hide ``directory`` behind a world-searchable tmpfs that contains only
    bind mounts of ``entries`` (same paths, original contents)."""
    stage = tempfile.mkdtemp(dir=stage_root)
    for name in entries:
        src, dst = os.path.join(directory, name), os.path.join(stage, name)
        _make_mountpoint(dst, os.path.isdir(src))
        _mount(src, dst, None, _MS_BIND | _MS_REC)
    _mount("tmpfs", directory, "tmpfs", _MS_NOSUID | _MS_NODEV, "mode=0755,size=64k")
    for name in entries:
        src, dst = os.path.join(stage, name), os.path.join(directory, name)
        _make_mountpoint(dst, os.path.isdir(src))
        _mount(src, dst, None, _MS_MOVE)


def _make_mountpoint(path: str, is_dir: bool) -> None:
    if is_dir:
        os.mkdir(path)
    else:
        os.close(os.open(path, os.O_CREAT | os.O_WRONLY, 0o644))


def _make_runtime_reachable(cfg: dict, uid: int, gid: int) -> tuple[bool, str]:
    """Ensure ``uid`` can reach the interpreter and the code; return (ok, note).

    When a needed path sits below a directory the user cannot search (e.g. a
    pyenv Python under ``/root``, mode 0700) the zygote moves into a private
    mount namespace and hides that directory behind a tmpfs holding bind
    mounts of just the needed entries.  Other content of that directory is
    then invisible to the probes.  Needs CAP_SYS_ADMIN and must run before
    any thread exists (unshare(CLONE_NEWNS) fails in threaded processes).
    """
    paths = _runtime_paths(cfg)
    notes = []
    namespaced = False
    for _round in range(6):
        report = _access_report(paths, uid, gid)
        if report["unreadable"]:
            return False, f"unreadable for uid {uid}: {', '.join(report['unreadable'][:5])}"
        if not report["blocked"]:
            return True, "; ".join(notes)
        try:
            if not namespaced:
                _checked(_libc.unshare(_CLONE_NEWNS), "unshare(CLONE_NEWNS)")
                # Never let our mounts propagate back to the host namespace.
                _mount(None, "/", None, _MS_REC | _MS_PRIVATE)
                namespaced = True
            for directory, entries in sorted(report["blocked"].items()):
                _overlay(directory, entries, cfg["stage_dir"])
                notes.append(f"overlaid {directory} (kept {', '.join(entries)})")
        except OSError as exc:
            return False, f"cannot make {sorted(report['blocked'])} reachable: {exc}"
    return False, "needed paths still unreachable after 6 rounds"


def _prepare(cfg: dict, req_fd: int, resp_fd: int) -> tuple[_State, dict]:
    """Set up the zygote; returns its state and the 'ready' message."""
    sys.path[:0] = [p for p in cfg["sys_path"] if p not in sys.path]
    sys.dont_write_bytecode = True
    uid = gid = None
    note = ""
    if cfg["drop"] != "never":
        uid, gid = cfg["uid"], cfg["gid"]
        reachable, note = _make_runtime_reachable(cfg, uid, gid)
        if not reachable:
            if cfg["drop"] == "required":
                raise RuntimeError(f"cannot drop privileges: {note}")
            uid = gid = None
    started = time.monotonic()
    # numpy.random is imported lazily by numpy 2: preload it so that its
    # functions exist (and are watched) before student code runs.
    lazy = ("numpy.random",) if "numpy" in cfg["preload"] else ()
    for name in (*cfg["preload"], *lazy, "json", "pickle", "random", "traceback",
                 "multiprocessing.popen_fork", "multiprocessing.popen_spawn_posix",
                 "multiprocessing.popen_forkserver", "multiprocessing.queues",
                 "multiprocessing.synchronize", *cfg["probe_modules"]):
        importlib.import_module(name)
    child = importlib.import_module("grader.sandbox_child")
    child.capture_references()
    preload_s = time.monotonic() - started
    _prctl(_PR_SET_CHILD_SUBREAPER, 1)
    state = _State(cfg=cfg, req_fd=req_fd, resp_fd=resp_fd, uid=uid, gid=gid,
                   result_cap=cfg["result_cap"])
    ready = {"ready": True, "pid": os.getpid(), "dropped": uid is not None,
             "uid": uid, "gid": gid, "note": note, "preload_s": preload_s}
    return state, ready


# --------------------------------------------------------------------------
# the probe child (runs after fork, never returns)


def _set_limit(which: int, soft: int, hard: int | None = None) -> None:
    hard = soft if hard is None else hard
    _cur_soft, cur_hard = resource.getrlimit(which)
    if cur_hard != resource.RLIM_INFINITY:
        soft, hard = min(soft, cur_hard), min(hard, cur_hard)
    resource.setrlimit(which, (soft, hard))


def _apply_limits(cfg: dict, timeout: float) -> None:
    mib = 1 << 20
    cpu = cfg["cpu_seconds"] or int(timeout) + 5
    _set_limit(resource.RLIMIT_CORE, 0)
    _set_limit(resource.RLIMIT_AS, cfg["memory_mb"] * mib)
    _set_limit(resource.RLIMIT_FSIZE, cfg["file_size_mb"] * mib)
    _set_limit(resource.RLIMIT_NOFILE, 1024)
    _set_limit(resource.RLIMIT_NPROC, cfg["max_processes"])
    _set_limit(resource.RLIMIT_CPU, cpu, cpu + 2)  # SIGXCPU first, SIGKILL 2 s later


def _redirect_fds(capture_fd: int, result_w: int) -> None:
    """stdin from /dev/null, stdout+stderr to the capture file, result pipe on fd 3."""
    devnull = os.open(os.devnull, os.O_RDONLY)
    os.dup2(devnull, 0)
    os.dup2(capture_fd, 1)
    os.dup2(capture_fd, 2)
    os.dup2(result_w, RESULT_FD, inheritable=False)  # not passed on to exec'd programs


def _child_setup(state: _State, scratch: str, timeout: float) -> None:
    """Lock the freshly forked child down before any student code runs."""
    cfg = state.cfg
    zygote = os.getppid()
    os.setsid()  # own session/process group, detached from the zygote's
    _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
    if os.getppid() != zygote:  # the zygote died before PDEATHSIG was armed
        os._exit(1)
    try:
        with open("/proc/self/oom_score_adj", "w") as fh:
            fh.write("1000")  # if the machine runs out of memory, kill us first
    except OSError:
        pass

    os.closerange(RESULT_FD + 1, 1 << 20)  # zygote pipes, pidfds, ...
    sys.stdout.reconfigure(line_buffering=True)  # keep output if we crash
    signal.signal(signal.SIGXFSZ, signal.SIG_IGN)  # over-long writes fail with EFBIG

    _apply_limits(cfg, timeout)
    os.environ.clear()
    os.environ.update(cfg["env"], HOME=scratch, TMPDIR=scratch)
    tempfile.tempdir = None
    if state.uid is not None:
        os.setgroups([])
        os.setresgid(state.gid, state.gid, state.gid)
        os.setresuid(state.uid, state.uid, state.uid)
        _prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)  # credential changes clear it
        if os.getppid() != zygote:
            os._exit(1)
    _prctl(_PR_SET_NO_NEW_PRIVS, 1)  # setuid binaries cannot regain privileges
    os.chdir(scratch)
    sys.path[:] = [cfg["code_dir"]] + [p for p in sys.path
                                       if p and p != cfg["code_dir"]
                                       and os.path.abspath(p) != scratch]
    import multiprocessing
    multiprocessing.current_process().authkey = os.urandom(32)


def _child_main(state: _State, request: dict, scratch: str, capture_fd: int,
                result_w: int) -> None:
    _redirect_fds(capture_fd, result_w)
    try:
        _child_setup(state, scratch, float(request["timeout"]))
    except BaseException as exc:  # noqa: BLE001
        body = json.dumps({"status": "setup_error",
                           "error": f"sandbox setup failed: {type(exc).__name__}: {exc}"})
        try:
            os.write(RESULT_FD, len(body).to_bytes(8, "big") + body.encode())
        finally:
            os._exit(70)
    from grader.sandbox_child import run_probe
    run_probe(request["probe"], request.get("args") or {}, RESULT_FD, state.result_cap)
    os._exit(72)  # not reached


# --------------------------------------------------------------------------
# waiting for the child and building the response


@dataclass
class _Outcome:
    status: int | None = None  # waitpid status; None if we had to kill it
    result: bytes = b""
    timed_out: bool = False
    overflow: bool = False
    grader_gone: bool = False


def _drain(fd: int, buf: bytearray, cap: int) -> bool:
    """Read what is available into ``buf``; True once EOF is seen."""
    while len(buf) <= cap:
        try:
            chunk = os.read(fd, 1 << 20)
        except BlockingIOError:
            return False
        if not chunk:
            return True
        buf += chunk
    return False


def _wait_child(state: _State, pid: int, result_r: int, deadline: float) -> _Outcome:
    """Collect the child's result and wait for its exit, up to ``deadline``."""
    outcome = _Outcome()
    buf = bytearray()
    cap = state.result_cap + 8
    pidfd = os.pidfd_open(pid)
    os.set_blocking(result_r, False)
    poller = select.poll()
    poller.register(pidfd, select.POLLIN)
    poller.register(result_r, select.POLLIN)
    poller.register(state.req_fd, 0)  # only POLLHUP/POLLERR: the grader went away
    try:
        while True:
            remaining = deadline - time.monotonic()
            if remaining <= 0:
                outcome.timed_out = True
                break
            exited = False
            for fd, _events in poller.poll(max(1, int(remaining * 1000) + 1)):
                if fd == result_r and _drain(result_r, buf, cap):
                    poller.unregister(result_r)
                elif fd == pidfd:
                    exited = True
                elif fd == state.req_fd:
                    outcome.grader_gone = True
            if len(buf) > cap:
                outcome.overflow = True
                break
            if outcome.grader_gone:
                break
            if exited:
                _drain(result_r, buf, cap)
                outcome.overflow = len(buf) > cap
                outcome.status = os.waitpid(pid, 0)[1]
                break
    finally:
        os.close(pidfd)
    outcome.result = bytes(buf)
    return outcome


def _read_output(fd: int, limit: int) -> str:
    """The captured stdout+stderr, cut to ``limit`` characters (head + tail)."""
    size = os.fstat(fd).st_size
    if size <= 4 * limit + 64:
        text = os.pread(fd, size, 0).decode("utf-8", "replace")
        cut = len(text) - limit
        head_bytes = tail_bytes = None
    else:
        head_bytes = os.pread(fd, 2 * limit, 0)
        tail_bytes = os.pread(fd, 2 * limit, size - 2 * limit)
        text = None
    if text is not None and cut <= 0:
        return text
    marker_len = len("\n[... 000000000000 characters cut ...]\n")
    keep = max(0, limit - marker_len)
    head_n, tail_n = keep - keep // 2, keep // 2
    if text is not None:
        head, tail = text[:head_n], text[len(text) - tail_n:] if tail_n else ""
        dropped = len(text) - head_n - tail_n
    else:  # too big to decode whole: count the cut part in bytes
        head = head_bytes.decode("utf-8", "replace")[:head_n]
        tail = tail_bytes.decode("utf-8", "replace")[-tail_n:] if tail_n else ""
        dropped = size - len(head.encode()) - len(tail.encode())
    return f"{head}\n[... {dropped} characters cut ...]\n{tail}"[:limit]


def _death_text(state: _State, status: int, output: str, timeout: float) -> str:
    text = describe_wait_status(status)
    if os.WIFEXITED(status):
        text += " before returning a result"
    cfg = state.cfg
    sig = os.WTERMSIG(status) if os.WIFSIGNALED(status) else None
    if sig == signal.SIGXCPU:
        text += f" (CPU time limit of {cfg['cpu_seconds'] or int(timeout) + 5} s exceeded)"
    elif any(hint in output for hint in ("MemoryError", "bad_alloc", "Cannot allocate memory",
                                         "can't allocate memory")):
        text += f" (probably the memory limit of {cfg['memory_mb']} MB)"
    elif sig == signal.SIGKILL:
        text += " (CPU time limit, memory limit or the OOM killer)"
    return text


def _interpret(state: _State, outcome: _Outcome, output: str, timeout: float) -> dict:
    """Turn what the child left behind into ProbeResult fields."""
    res = {"status": "crashed", "data": None, "error": "", "error_type": "",
           "traceback": "", "flags": []}
    if outcome.timed_out:
        return {**res, "status": "timeout",
                "error": f"probe did not finish within {timeout:g} s and was killed"}
    if outcome.overflow:
        return {**res, "status": "error", "error_type": "ResultTooLarge",
                "error": f"ResultTooLarge: result exceeds {state.result_cap} bytes"}
    if outcome.result:
        try:
            msg = parse_frame(outcome.result, state.result_cap)
            return _validated(msg, res)
        except (ChannelError, ValueError, TypeError, KeyError) as exc:
            how = describe_wait_status(outcome.status) if outcome.status is not None else ""
            return {**res, "error": f"invalid data on the result pipe ({exc}); child {how}"}
    return {**res, "error": _death_text(state, outcome.status, output, timeout)}


def _validated(msg: object, res: dict) -> dict:
    """Check the shape of the child's message (it may have been forged)."""
    if not isinstance(msg, dict):
        raise ValueError("result is not an object")
    flags = msg.get("flags", [])
    if not isinstance(flags, list) or not all(isinstance(f, str) for f in flags):
        raise ValueError("bad flags")
    status = msg.get("status")
    if status == "ok":
        return {**res, "status": "ok", "data": msg.get("data"), "flags": flags}
    if status == "error":
        fields = {k: msg.get(k, "") for k in ("error", "error_type", "traceback")}
        if not all(isinstance(v, str) for v in fields.values()):
            raise ValueError("bad error fields")
        return {**res, **fields, "status": "error", "flags": flags}
    if status == "setup_error" and isinstance(msg.get("error"), str):
        return {**res, "error": msg["error"]}
    raise ValueError(f"unknown status {status!r}")


def _open_capture_file(directory: str) -> int:
    """An anonymous file (no name anywhere) for the child's stdout/stderr."""
    try:
        return os.open(directory, os.O_TMPFILE | os.O_RDWR, 0o600)
    except OSError:
        fd, path = tempfile.mkstemp(dir=directory)
        os.unlink(path)
        return fd


def _run_one(state: _State, request: dict) -> dict:
    """Fork a child for one probe request and return the response dict."""
    timeout = float(request["timeout"])
    scratch = tempfile.mkdtemp(prefix="run-", dir=state.cfg["scratch_root"])
    if state.uid is not None:
        os.chown(scratch, state.uid, state.gid)
    capture_fd = _open_capture_file(state.cfg["capture_dir"])
    result_r, result_w = os.pipe()
    sys.stdout.flush()
    sys.stderr.flush()
    started = time.monotonic()
    pid = os.fork()
    if pid == 0:
        try:
            os.close(result_r)
            _child_main(state, request, scratch, capture_fd, result_w)
        finally:
            os._exit(70)
    os.close(result_w)
    try:
        outcome = _wait_child(state, pid, result_r, started + timeout)
        duration = time.monotonic() - started
        kill_descendants(os.getpid(), reap=True)
    finally:
        os.close(result_r)
    if outcome.grader_gone:
        raise ChannelError("grader went away")
    output = _read_output(capture_fd, state.cfg["output_limit"])
    os.close(capture_fd)
    _remove_tree(scratch)
    response = _interpret(state, outcome, output, timeout)
    response.update(output=output, duration_s=duration)
    return response


def _remove_tree(path: str) -> None:
    import shutil

    def _retry_writable(func, failed_path, _exc_info):
        try:
            os.chmod(os.path.dirname(failed_path), 0o700)
            func(failed_path)
        except OSError:
            pass
    shutil.rmtree(path, onerror=_retry_writable)


# --------------------------------------------------------------------------
# main loop


def _serve(state: _State) -> bool:
    """Answer requests until told to exit (True) or the grader is gone (False)."""
    while True:
        try:
            request = recv_msg(state.req_fd, None, _MAX_REQUEST)
        except ChannelError:
            return False  # the grader closed the pipe (or died)
        if not isinstance(request, dict) or request.get("cmd") == "exit":
            return True
        if request.get("cmd") == "ping":
            response = {"pong": True}
        else:
            try:
                response = _run_one(state, request)
            except ChannelError:
                return False
            except Exception as exc:  # noqa: BLE001 - a zygote bug must not hang the grader
                response = {"status": "crashed", "data": None, "error_type": "",
                            "error": f"sandbox zygote error: {type(exc).__name__}: {exc}",
                            "traceback": traceback.format_exc()[-3000:], "output": "",
                            "duration_s": 0.0, "flags": []}
        try:
            send_msg(state.resp_fd, response, time.monotonic() + 60)
        except ChannelError:
            return False


def main(req_fd: int, resp_fd: int) -> None:
    """Entry point; see the module docstring for the protocol."""
    try:
        cfg = recv_msg(req_fd, time.monotonic() + 60, _MAX_REQUEST)
        state, ready = _prepare(cfg, req_fd, resp_fd)
    except BaseException as exc:  # noqa: BLE001
        try:
            send_msg(resp_fd, {"ready": False, "error": f"{type(exc).__name__}: {exc}",
                               "traceback": traceback.format_exc()[-3000:]},
                     time.monotonic() + 10)
        finally:
            os._exit(1)
    send_msg(resp_fd, ready, time.monotonic() + 60)
    told_to_exit = False
    try:
        told_to_exit = _serve(state)
    finally:
        kill_descendants(os.getpid(), reap=True)
        if not told_to_exit:  # the grader died: nobody else will remove its temp dir
            _remove_tree(os.path.dirname(cfg["scratch_root"]))
        os._exit(0)
