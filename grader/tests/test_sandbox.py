"""Tests for grader.sandbox: isolation, limits, cleanup and result plumbing.

One Sandbox (one zygote) is shared by the module; tests that need other
settings start their own.  After every test no process may be left below the
zygote, and the grader's secret environment variable must never reach a
probe.
"""

from __future__ import annotations

import os
import pwd
import statistics
import sys
import threading
import time
from pathlib import Path

import pytest

from grader.paths import REPO
from grader.registry import CONTRACT_FILES
from grader.sandbox import NOGROUP, PRIVATE_UIDS, Flag, ProbeResult, Sandbox, SandboxError
from grader.sandbox.jail import CODE_DIR, LIB_DIR, SCRATCH_DIR
from grader.shared.proctree import descendants

PROBES = "grader.tests.sandbox_probes"

SECRET_NAME, SECRET_VALUE = "GRADER_TEST_SECRET", "s3cr3t-do-not-leak-4711"
IS_ROOT = os.geteuid() == 0

COLLATE = '''\
import torch
from torch.utils.data import Dataset


def pad_collate(b, pad_id=None):
    return 42


def _deeper(batch):
    return batch[5]


def fails(batch):
    return _deeper(batch)


def hangs():
    import time
    while True:
        time.sleep(0.05)


class SquaresDataset(Dataset):
    def __init__(self, n):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return torch.tensor(i * i)
'''
BUCKETING = "from collate import pad_collate\n"
SYNTAX_ERROR = "def broken(:\n    pass\n"
NOT_UTF8 = b"# caf\xe9\nx = '\xff\xfe'\n"
LOOPS_AT_IMPORT = "while True:\n    pass\n"


def probe(name: str) -> str:
    return f"{PROBES}:{name}"


def _write_student_dir(root: Path) -> Path:
    root.mkdir(parents=True, exist_ok=True)
    (root / "collate.py").write_text(COLLATE)
    (root / "bucketing.py").write_text(BUCKETING)
    (root / "sharding.py").write_text(SYNTAX_ERROR)
    (root / "seeding.py").write_bytes(NOT_UTF8)
    (root / "tokens.py").write_text(LOOPS_AT_IMPORT)
    # Must all be ignored: not on the allow-list.
    (root / "conftest.py").write_text("raise SystemExit('conftest imported')\n")
    (root / "sitecustomize.py").write_text("raise SystemExit('sitecustomize imported')\n")
    (root / "torch.py").write_text("raise SystemExit('fake torch imported')\n")
    return root


@pytest.fixture(scope="module")
def secret_env():
    old = os.environ.get(SECRET_NAME)
    os.environ[SECRET_NAME] = SECRET_VALUE
    yield
    if old is None:
        os.environ.pop(SECRET_NAME, None)
    else:
        os.environ[SECRET_NAME] = old


@pytest.fixture(scope="module")
def student_dir(tmp_path_factory):
    return _write_student_dir(tmp_path_factory.mktemp("student"))


@pytest.mark.slow
def test_a_zygote_that_cannot_start_leaves_nothing_behind(student_dir):
    box = Sandbox(student_dir, probe_modules=(PROBES,), preload=("torch", "no_such_module_for_the_test"))
    with pytest.raises(SandboxError, match="no_such_module_for_the_test"):
        with box:
            pass
    assert not box.root.exists(), "the sandbox folder outlived a failed start"


@pytest.fixture(scope="module")
def sandbox(student_dir, secret_env):
    started = time.monotonic()
    with Sandbox(student_dir, probe_modules=(PROBES,)) as box:
        print(f"\nzygote start: {time.monotonic() - started:.2f} s "
              f"(isolation: {box.isolation}; privileges dropped: {box.privileges_dropped})")
        yield box


def inside(box: Sandbox, folder: str) -> str:
    """A sandbox folder ("code", "lib", "scratch") as the probes see it."""
    jailed = {"code": CODE_DIR, "lib": LIB_DIR, "scratch": SCRATCH_DIR}
    return jailed[folder] if box.jailed else str(box.code_dir.parent / folder)


def ns_pid(host_pid: int) -> int:
    """The pid that a process has in its innermost PID namespace."""
    for line in Path(f"/proc/{host_pid}/status").read_text().splitlines():
        if line.startswith("NSpid:"):
            return int(line.split()[-1])
    raise AssertionError(f"no NSpid for {host_pid}")


@pytest.fixture(autouse=True)
def nothing_left_behind(request):
    yield
    if "sandbox" in request.fixturenames:
        box = request.getfixturevalue("sandbox")
        assert box.live_descendants() == []


def run(box: Sandbox, name: str, timeout: float = 30.0, **args) -> ProbeResult:
    """Run a probe and check that the grader's secret did not leak into it."""
    result = box.run(probe(name), args, timeout=timeout)
    assert SECRET_VALUE not in repr(result)
    return result


def _alive(pid: int) -> bool:
    try:
        state = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()[0]
    except OSError:
        return False
    return state not in ("Z", "X")


# ------------------------------------------------------------------ results


@pytest.mark.timeout(60)
def test_returns_args_round_trip(sandbox):
    """Arguments come back as sent, probe after probe (the round trip's cost is a figure: ``grader bench``)."""
    assert run(sandbox, "returns_args", a=1, b=[1, "x"]).data == {"a": 1, "b": [1, "x"]}
    times = []
    for i in range(10):
        started = time.monotonic()
        assert run(sandbox, "returns_args", i=i).data == {"i": i}
        times.append(time.monotonic() - started)
    print(f"\nper-probe round trip: median {statistics.median(times) * 1000:.1f} ms, "
          f"max {max(times) * 1000:.1f} ms")


@pytest.mark.timeout(60)
def test_numpy_tensors_and_tuples_become_json(sandbox):
    result = run(sandbox, "numpy_and_tuples")
    assert result.status == "ok", result
    assert result.data == {"array": [0, 1, 2], "scalar": 1.5, "pair": [1, "a"],
                           "tensor": [[1, 2]], "nested": [7, None, True]}


@pytest.mark.timeout(60)
def test_non_json_result_is_an_error(sandbox):
    result = run(sandbox, "not_json")
    assert (result.status, result.error_type) == ("error", "ResultNotSerializable")
    assert "set" in result.error


@pytest.mark.timeout(60)
def test_probe_exception_becomes_error(sandbox):
    result = run(sandbox, "raises_value_error")
    assert result.status == "error"
    assert result.error_type == "ValueError"
    assert result.error == "ValueError: bad value 17"
    assert "raises_value_error" in result.traceback
    assert len(result.traceback.splitlines()) <= 15
    assert result.data is None


def test_bad_arguments_are_grader_errors(sandbox):
    with pytest.raises(ValueError):
        sandbox.run("no_colon_here")
    with pytest.raises(TypeError):
        sandbox.run(probe("returns_args"), {"x": {1, 2}})


# ------------------------------------------------------------------ isolation


@pytest.mark.timeout(60)
def test_environment_is_scrubbed(sandbox):
    result = run(sandbox, "env")
    assert result.status == "ok", result
    child_env = result.data
    assert SECRET_NAME not in child_env
    assert set(child_env) == {"PATH", "LANG", "USER", "LOGNAME", "HOME", "TMPDIR", "PYTHONHASHSEED",
                              "OMP_NUM_THREADS", "MKL_NUM_THREADS",
                              "PYTHONDONTWRITEBYTECODE", "PYTHONNOUSERSITE"}
    assert child_env["HOME"] == child_env["TMPDIR"]
    assert child_env["OMP_NUM_THREADS"] == "1"


@pytest.mark.timeout(60)
def test_child_process_setup(sandbox):
    info = run(sandbox, "identity").data
    assert info["sid"] == info["pid"]  # own session
    assert info["ppid"] == ns_pid(sandbox.zygote_pid)
    assert info["stdin_is_devnull"]
    assert set(info["open_fds"]) <= {0, 1, 2, 3, 4, 5, 6}  # 3: result pipe, 4: forkserver's alive pipe, 5: clock marks, 6: the listdir
    assert info["executable"] == sys.executable  # spawn workers use the same Python
    assert info["sys_path"][:2] == [inside(sandbox, "lib"), inside(sandbox, "code")]
    assert str(REPO) not in info["sys_path"]
    assert "" not in info["sys_path"] and info["cwd"] not in info["sys_path"]
    assert str(Path(info["cwd"]).parent) == inside(sandbox, "scratch")
    if sandbox.privileges_dropped:  # a private uid of its own: no account, no other process
        assert info["uid"] == info["euid"] and info["uid"] in PRIVATE_UIDS and info["gid"] == NOGROUP
        with pytest.raises(KeyError):
            pwd.getpwuid(info["uid"])
    if sandbox.jailed:  # no capability left, in any set
        assert info["capabilities"] == {"CapInh": 0, "CapPrm": 0, "CapEff": 0, "CapAmb": 0}


@pytest.mark.timeout(60)
def test_limits_are_applied(sandbox):
    limits = run(sandbox, "limits").data
    assert limits["RLIMIT_AS"] == [4096 << 20] * 2
    assert limits["RLIMIT_FSIZE"] == [64 << 20] * 2
    assert limits["RLIMIT_NPROC"] == [128, 128]
    assert limits["RLIMIT_CORE"] == [0, 0]
    assert limits["RLIMIT_NOFILE"][0] <= 1024
    assert limits["RLIMIT_CPU"] == [35, 37]  # timeout 30 s + 5, hard +2


@pytest.mark.timeout(60)
def test_jailed_child_cannot_touch_the_grader(sandbox, tmp_path):
    if not sandbox.jailed:
        pytest.skip(f"no jail here: {sandbox.isolation.reason}")
    grader_file = tmp_path / "grades.json"
    grader_file.write_text("{}")
    os.chmod(tmp_path, 0o755)
    outcome = run(sandbox, "attack_grader", grader_pid=os.getpid(),
                  grader_file=str(grader_file)).data
    # The grader's process and files do not exist in the jail at all.
    assert outcome == {"environ": "FileNotFoundError", "signal": "ProcessLookupError",
                       "write": "FileNotFoundError", "scratch": "allowed"}
    assert run(sandbox, "write_code_dir").data in ("PermissionError", "OSError")


# ------------------------------------------------------------------ student code


def test_only_allow_listed_regular_files_are_copied(tmp_path):
    student = tmp_path / "student"
    student.mkdir()
    plain, outside_link, inside_link, fifo, folder = CONTRACT_FILES[:5]
    (student / plain).write_text("x = 1\n")
    (student / "conftest.py").write_text("")
    (student / outside_link).symlink_to("/etc/passwd")
    (student / "inside.txt").write_text("y = 2\n")
    (student / inside_link).symlink_to(student / "inside.txt")
    (student / folder).mkdir()
    os.mkfifo(student / fifo)
    box = Sandbox(student)  # copying happens here; no zygote is started
    try:
        package = box.code_dir / "submission"
        assert sorted(p.name for p in package.iterdir()) == ["__init__.py", plain]
        link = "is a symbolic link; submit the file itself"
        not_regular = "is not a regular file (a folder, FIFO or device); submit a plain .py file"
        assert box.skipped == {outside_link: link, inside_link: link, fifo: not_regular, folder: not_regular,
                               **{name: "missing" for name in CONTRACT_FILES[5:]}}
    finally:
        box.close()
        box.close()  # idempotent


@pytest.mark.timeout(60)
def test_student_module_is_a_real_package_module(sandbox):
    result = run(sandbox, "imports_student", module="collate")
    assert result.data["name"] == "submission.collate"
    assert result.data["file"] == f"{inside(sandbox, 'code')}/submission/collate.py"
    assert run(sandbox, "call_pad_collate").data == 42
    assert set(sandbox.copied) == set(CONTRACT_FILES)
    assert not (sandbox.code_dir / "submission" / "conftest.py").exists()


@pytest.mark.timeout(60)
def test_flat_imports_between_student_files_share_modules(sandbox):
    assert run(sandbox, "flat_import_identity").data == {"same_function": True,
                                                        "same_module": True}


@pytest.mark.timeout(60)
@pytest.mark.parametrize("module, error_type", [
    ("sharding", "SyntaxError"),
    ("seeding", "SyntaxError"),  # CPython reports non-UTF-8 source as SyntaxError
    ("missing_module", "ModuleNotFoundError"),
])
def test_import_failures_are_errors(sandbox, module, error_type):
    result = run(sandbox, "imports_student", module=module)
    assert (result.status, result.error_type) == ("error", error_type), result
    assert result.error.startswith(f"{error_type}: ")
    if module == "seeding":
        assert "utf-8" in result.error.lower() or "UTF-8" in result.error


@pytest.mark.timeout(60)
def test_loop_at_import_times_out(sandbox):
    started = time.monotonic()
    result = run(sandbox, "imports_student", module="tokens", timeout=1.0)
    assert result.status == "timeout"
    assert "1 s" in result.error
    assert time.monotonic() - started < 5


# ------------------------------------------------------------------ misbehaviour


@pytest.mark.timeout(60)
def test_timeout_keeps_output(sandbox):
    result = run(sandbox, "sleep_forever", timeout=0.5)
    assert result.status == "timeout"
    assert "going to sleep" in result.output
    assert 0.5 <= result.duration_s < 3


@pytest.mark.timeout(60)
def test_detached_double_fork_is_killed(sandbox):
    result = run(sandbox, "double_fork_sleeper")
    assert result.status == "ok", result
    assert isinstance(result.data, int)  # the sleeper's pid, as the probe sees it (maybe in the jail's namespace)
    assert not _processes_with("sleep\x001000"), "the detached sleeper survived the probe"


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name, status, text", [
    ("segfault", "crashed", "killed by signal 11 (SIGSEGV)"),
    ("exit_3", "crashed", "exited with status 3 before returning a result"),
    ("sys_exit", "error", "SystemExit: 0"),
    ("infinite_recursion", "error", "RecursionError: maximum recursion depth"),
    ("garbage_on_result_pipe", "crashed", "invalid data on the result pipe"),
    ("huge_length_on_result_pipe", "crashed", "invalid data on the result pipe"),
])
def test_crashes_are_reported(sandbox, name, status, text):
    result = run(sandbox, name)
    assert result.status == status, result
    assert text in result.error


@pytest.mark.timeout(60)
def test_output_flood_is_cut(sandbox):
    started = time.monotonic()
    result = run(sandbox, "flood_output", megabytes=1024)
    assert time.monotonic() - started < 15
    # RLIMIT_FSIZE stops the writes at 64 MB with EFBIG instead of a signal.
    assert (result.status, result.error_type) == ("error", "OSError"), result
    assert "File too large" in result.error
    assert len(result.output) <= 2000
    assert result.output.startswith("START")
    assert "characters cut ...]" in result.output


@pytest.mark.timeout(60)
def test_output_keeps_head_and_tail(sandbox):
    result = run(sandbox, "print_lines", n=1000)
    assert result.data == 1000
    assert len(result.output) <= 2000
    assert result.output.startswith("line 0\n")
    assert result.output.endswith("line 999\nto stderr\n")
    assert "characters cut ...]" in result.output
    small = run(sandbox, "print_lines", n=2)
    assert small.output == "line 0\nline 1\nto stderr\n"


@pytest.mark.timeout(60)
def test_memory_bomb_fails_fast(sandbox):
    started = time.monotonic()
    result = run(sandbox, "memory_bomb")
    assert time.monotonic() - started < 10
    assert (result.status, result.error_type) == ("error", "MemoryError"), result


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name, replaced, data", [
    ("patch_torch_equal", "torch.equal", True),
    ("patch_json_dumps", "json.dumps", {"real": "data"}),
])
def test_monkeypatching_is_flagged(sandbox, name, replaced, data):
    result = run(sandbox, name)
    assert result.status == "ok", result
    assert result.data == data  # json.dumps patched: the result is still real
    assert result.flags == [Flag("replaced", replaced, probe(name))]
    assert run(sandbox, "returns_args").flags == []  # next child is clean again


@pytest.mark.timeout(60)
@pytest.mark.parametrize("name, replaced", [
    ("patch_random_draws", {"numpy.random.random", "random.random"}),
    ("patch_sandbox_child_helper", {"grader.inside.child.load_submission"}),
])
def test_random_draws_and_grader_functions_are_watched(sandbox, name, replaced):
    """Hostile corpus: faking seeded draws, or replacing a grader helper, is flagged."""
    result = run(sandbox, name)
    assert result.status == "ok", result
    assert set(result.flags) == {Flag("replaced", n, probe(name)) for n in replaced}


@pytest.mark.timeout(60)
def test_huge_exception_message_is_cut(sandbox):
    """Hostile corpus: a 20 MB exception message must not reach the report whole."""
    result = run(sandbox, "raises_huge_message")
    assert result.status == "error" and result.error_type == "ValueError"
    assert 1000 < len(result.error) <= 4100 and "characters cut" in result.error
    assert len(result.traceback) <= 4100


def test_preflight_ignores_forged_entry_points(tmp_path):
    """Hostile corpus (forged_result): a forged preflight answer must not crash the runner."""
    from grader.engine.preflight import preflight

    (tmp_path / "collate.py").write_text("")

    class Fake:
        copied, skipped = ("collate.py",), {}

        def __init__(self, data):
            self.data = data

        def run(self, probe, args, timeout):
            if probe.endswith(":load"):
                return ProbeResult(status="ok", data=[])
            return ProbeResult(status="ok", data=self.data)

    for data in ({"score": 100}, [1], None, "x", {}):
        assert preflight(Fake(data), "collate") == ""
    assert preflight(Fake({"pad_collate": "not implemented: x"}), "collate").startswith("not implemented")


def test_context_keeps_flags_per_check():
    """A check whose probe reported a replaced function is failed by the runner (hostile corpus)."""
    from grader.engine.checking import Context

    flag = Flag("replaced", "torch.equal", "grader.exercises.collate.probe:basic")

    class Fake:
        def run(self, probe, args, timeout):
            return ProbeResult(status="ok", data=1, flags=[flag] if args else [])

    ctx = Context(sandbox=Fake(), seed=1)
    ctx.current = "a"
    assert ctx.probe("x:y") == 1
    ctx.current = "b"
    ctx.probe("x:y", flag=True)
    ctx.probe("x:y", flag=True)
    assert ctx.flags_by_check == {"a": {}, "b": {flag: None}}
    assert list(ctx.flags) == [flag]


# ------------------------------------------------------------------ DataLoader


@pytest.mark.timeout(120)
@pytest.mark.workers
@pytest.mark.parametrize("start_method", ["fork", "spawn", "forkserver"])
def test_dataloader_workers_in_child(sandbox, start_method):
    result = run(sandbox, "dataloader_workers", start_method=start_method, timeout=60)
    assert result.status == "ok", (result.error, result.output)
    assert result.data["batches"] == [[0, 1], [4, 9], [16, 25], [36, 49]]
    print(f"\nDataLoader(num_workers=2, {start_method}): "
          f"{result.data['seconds']:.2f} s in probe, {result.duration_s:.2f} s child")


@pytest.mark.timeout(60)
@pytest.mark.workers
def test_live_dataloader_workers_are_killed(sandbox):
    result = run(sandbox, "leave_workers_alive")
    assert result.status == "ok", result
    assert len(result.data) == 2  # two workers were alive when the probe returned
    assert sandbox.live_descendants() == []  # pids in the jail differ from the host's: look from the host


# ------------------------------------------------------------------ zygote lifecycle


def _jail_processes(box: Sandbox) -> set[int]:
    """The processes that run the sandbox's current zygote (bwrap, its init, the zygote)."""
    proc = box._proc
    return {proc.pid, *descendants(proc.pid)} if proc is not None else set()


def _processes_with(marker: str) -> set[int]:
    """Live processes whose command line (NUL-separated) contains ``marker``."""
    found = set()
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit() and _alive(int(entry.name)):
            try:
                if marker.encode() in (entry / "cmdline").read_bytes():
                    found.add(int(entry.name))
            except OSError:
                pass
    return found


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_zygote_death_is_survived(sandbox):
    old_zygote = sandbox.zygote_pid
    killer = threading.Timer(0.5, os.kill, (old_zygote, 9))
    killer.start()
    result = run(sandbox, "sleep_forever", timeout=20)
    killer.join()
    assert result.status == "crashed"
    assert "zygote died" in result.error and "restarted" in result.error
    assert sandbox.zygote_pid not in (None, old_zygote)
    # The orphaned probe child (a fork, so it carries the marker) died too.
    deadline = time.monotonic() + 5
    while _processes_with(sandbox.token) - _jail_processes(sandbox):
        assert time.monotonic() < deadline
        time.sleep(0.05)
    assert run(sandbox, "returns_args", x=1).data == {"x": 1}


@pytest.mark.slow
@pytest.mark.timeout(120)
@pytest.mark.skipif(not IS_ROOT, reason="RLIMIT_NPROC only bites under a dropped uid")
def test_fork_bomb_cpu_limit_and_close(student_dir, secret_env):
    box = Sandbox(student_dir, preload=("torch",), probe_modules=(PROBES,),
                  max_processes=16, cpu_seconds=1)
    box.start()
    assert box.privileges_dropped, box.isolation
    zygote, root = box.zygote_pid, box.code_dir.parent
    result = box.run(probe("fork_bomb"), timeout=20)
    assert result.status == "ok", result
    assert result.data < 16
    assert box.live_descendants() == []
    busy = box.run(probe("imports_student"), {"module": "tokens"}, timeout=20)
    assert busy.status == "crashed"
    assert busy.error == "killed by signal 24 (SIGXCPU) (CPU time limit of 1 s exceeded)"
    box.close()
    box.close()
    assert not _alive(zygote)
    assert not root.exists()
    assert _processes_with(box.token) == set()


@pytest.mark.timeout(120)
@pytest.mark.workers
def test_forkserver_is_shared_and_workers_talk_to_the_probe(sandbox):
    """Workers come from one server per sandbox, run as the probe's user, and print into the probe's output."""
    first, second = (run(sandbox, "forkserver_workers", timeout=60) for _ in range(2))
    for result in (first, second):
        assert result.status == "ok", (result.error, result.output)
        assert {uid for uid, _pid in result.data["items"]} == {result.data["uid"]}
        assert "worker says 0" in result.output and "worker says 1" in result.output
        assert result.duration_s < 2  # no interpreter start, no import of torch
    assert sandbox.live_descendants() == []


# ------------------------------------------------------------------ the receiving end


class _Interrupted(Exception):
    pass


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_an_exception_while_waiting_never_desynchronises_the_channel(sandbox):
    """The caller's own timeout fires in the middle of a probe (as pytest-timeout's backstop does): the
    zygote is stopped, so the next request gets its own answer, never the late one."""
    import signal

    def interrupt(signum, frame):
        raise _Interrupted()

    old = signal.signal(signal.SIGALRM, interrupt)
    signal.alarm(1)
    try:
        with pytest.raises(_Interrupted):
            run(sandbox, "sleep_then_answer", seconds=3, answer="late answer")
    finally:
        signal.alarm(0)
        signal.signal(signal.SIGALRM, old)
    time.sleep(3)  # the late answer would be in the pipe by now
    assert run(sandbox, "returns_args", mine=1).data == {"mine": 1}
    assert run(sandbox, "returns_args", mine=2).data == {"mine": 2}


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_an_answer_to_another_request_restarts_the_zygote(sandbox, monkeypatch):
    from grader.sandbox import host

    real_receive = host.channel.receive

    def misnumbered(*args, **kwargs):
        answer = real_receive(*args, **kwargs)
        if isinstance(answer, ProbeResult):
            answer.request_id += 1
        return answer

    old_zygote = sandbox.zygote_pid
    monkeypatch.setattr(host.channel, "receive", misnumbered)
    result = sandbox.run(probe("returns_args"), {"x": 1}, timeout=10)
    monkeypatch.undo()
    assert result.status in ("crashed", "timeout") and result.data is None
    assert "while waiting for request" in result.error and "restarted" in result.error
    assert sandbox.zygote_pid not in (None, old_zygote)
    assert run(sandbox, "returns_args", x=2).data == {"x": 2}


@pytest.mark.timeout(120)
def test_a_forged_frame_is_cut_at_the_receiving_end(sandbox):
    """Row 1 of the receiving-end issue: the child writes its own frame, skipping its own cut. Texts under the frame's
    string limit are cut to TEXT_LIMITS; a 15 MB text is refused unread (bounded decoding), said plainly."""
    from grader.shared.messages import FRAME_SHAPE, TEXT_LIMITS

    result = run(sandbox, "forged_huge_error", megabytes=0, kilobytes=200)
    assert result.status == "error"
    for name, limit in TEXT_LIMITS.items():
        assert len(getattr(result, name)) <= limit, (name, len(getattr(result, name)))
    assert "characters cut by the grader" in result.error and result.error.startswith("ForgedError: xxx")
    refused = run(sandbox, "forged_huge_error", megabytes=15)
    assert refused.status == "error" and refused.error.startswith("FrameRefused: the grader refused the answer unread")
    assert f"{FRAME_SHAPE.max_string_bytes:,}" in refused.error, refused.error


# ------------------------------------------------------------------ feedback about the student's code only


def _no_machine_paths(text: str) -> None:
    for part in ("/jail/", sys.prefix, str(REPO), "site-packages"):
        assert part not in text, (part, text)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_an_error_in_the_students_code_names_only_its_frames(sandbox):
    result = run(sandbox, "student_error_here")
    assert result.error == "IndexError: list index out of range"
    assert 'File "collate.py"' in result.traceback and "in _deeper" in result.traceback and "in fails" in result.traceback
    _no_machine_paths(result.traceback)


@pytest.mark.timeout(120)
@pytest.mark.workers
def test_an_error_in_a_dataloader_worker_is_told_once_from_the_workers_frames(sandbox):
    result = run(sandbox, "student_error_in_worker", timeout=60)
    assert result.status == "error", result
    assert result.error.startswith("IndexError: Caught IndexError in DataLoader worker process 0: IndexError: list index")
    assert "Original Traceback" not in result.error + result.traceback, "the worker's traceback twice"
    assert result.traceback.startswith("Traceback in the DataLoader worker (your code, innermost last):")
    assert 'File "collate.py"' in result.traceback and "in _deeper" in result.traceback
    _no_machine_paths(result.error + result.traceback)


@pytest.mark.slow
@pytest.mark.timeout(120)
def test_a_probe_that_hangs_says_where_the_students_code_was(sandbox):
    result = run(sandbox, "student_hangs", timeout=3)
    assert result.status == "timeout"
    assert result.traceback.startswith("Your code was here when the time limit hit"), result.traceback
    assert 'File "collate.py"' in result.traceback and "in hangs" in result.traceback
    assert "Thread 0x" not in result.output and "most recent call first" not in result.output
    _no_machine_paths(result.traceback + result.output)
