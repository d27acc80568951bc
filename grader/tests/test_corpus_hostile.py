"""The hostile corpus: submissions that attack the grader, graded end to end.

Each folder under ``grader/tests/corpus/hostile/`` holds the hostile file(s)
and an ``expect.toml`` (see ``_load_entry``).  Files that must not sit under
their real name in this repository (``conftest.py``, ``pytest.ini``,
``sitecustomize.py``, ``torch.py``, ...) are stored with a ``.hostile``
suffix, which is dropped when the submission is assembled.  The missing contract files of
a submission are taken from ``solutions/``.  Every entry is graded by the
real command line in a subprocess, with fake secrets in the grader's
environment, and the test asserts what grader/docs/DESIGN.md principles 3 and 5 promise:

* the grader exits 0 within the entry's ``time_bound_s``;
* the JSON report is complete, has the grader's schema, and is the grader's
  own: nothing under the output folder changes after the grader has exited
  (checked again when the module's tests are done, at least
  ``WATCH_AFTER_EXIT_S`` after the last grader exited: see ``reports_after_exit``);
* affected exercises score at most ``max_points`` / at least ``min_points``;
  in a ``grade_all`` run every other exercise gets full marks;
* the expected ``integrity.flags`` are present;
* the fake secrets appear in no output (stdout, stderr, JSON, Markdown,
  JUnit, Gradescope's results.json), and neither does an escape sequence or a
  line a CI runner would read as a workflow command;
* no process started for the run is left, and the grader's temp dirs are gone.

Entries may also ask for a scene around the grading (keys of expect.toml):
``needs_jail`` (skipped, with the reason, where no bubblewrap jail can be
made), ``decoy`` (a folder like another grading's, holding the reference, sits
in the grader's temp folder), ``plant_reports`` (a symlink at the --json path
and a FIFO at the --markdown path), ``listen_port`` (a TCP listener on the
host's 127.0.0.1 that must receive nothing), ``exercises_link`` (the
student's ``exercises`` folder is a link there, graded through ``batch``,
which must refuse it), ``max_flags`` (at most this many integrity flags),
``timeout_scale`` (graded with ``--timeout-scale``: entries whose point is a
hang wait out shorter limits; the report must record the factor and the
affected exercises still lose their points), ``cut_note`` (some message or
note of the report says the grader cut a text or refused it unread), ``says`` ({check: a text its
message must hold}: the check says why it failed), ``max_grader_peak_mb``
(the grading process's peak resident memory, wait4's ``ru_maxrss``, at most
this: what the entry sends back cannot grow the grader).

Every report stays under its cap whatever the entry sends back: the JSON
report and Gradescope's results.json at most 256 KB, the Markdown at most 64 KB.

The grader's temp dir (TMPDIR) is a fresh folder per test, so every sandbox
process carries its path (cwd, environment) and can be found afterwards.

Slow: the whole corpus takes minutes (``-m 'not slow'`` grades only :data:`QUICK`).
"""

from __future__ import annotations

import csv
import fcntl
import hashlib
import json
import os
import re
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import threading
import time
import tomllib
from pathlib import Path

import pytest

from grader.engine.results import GradeResult
from grader.engine.rubric import load_rubric
from grader.paths import REPO
from grader.registry import CONTRACT_FILES, EXERCISES
from grader.tests import container
from grader.tools.authoring import corpus
from grader.writers import to_gradescope

CORPUS = Path(__file__).with_name("corpus") / "hostile"
SOLUTIONS = REPO / "solutions"
RUBRIC = load_rubric()
REPORT_KEYS = {"schema_version", "score", "max_score", "seed", "duration_s", "submission", "started_at",
               "grader_version", "gpu", "exercises", "integrity", "isolation", "phases", "provenance", "timeout_scale",
               "seed_secret", "seed_from_repository", "grader_sha256", "environment", "throughput"}
EXERCISE_KEYS = {"name", "score", "max_score", "note", "checks"}
CHECK_KEYS = {"name", "status", "score", "max_score", "message"}
STATUSES = {"passed", "failed", "error", "timeout", "skipped"}
REPORT_CAPS = {"json": 256 * 1024, "markdown": 64 * 1024}
CLEANUP_GRACE_S = 10.0
WATCH_AFTER_EXIT_S = 3.0
#: Where an entry is graded: on this machine (the jail where it can be made), and in the simulated Gradescope
#: container (grader/tests/container.py: no namespaces, so Landlock and seccomp make it "contained") when its
#: expect.toml has a [container] table: an attack on what the isolation level changes (files, network, signals,
#: processes, disk), whose ``why`` says which layer must hold there. An attack on the grader's own handling
#: (frames, output, exceptions, hangs of one call) takes the same code path at every level and is graded once.
PLACES = corpus.HOSTILE_PLACES
HOSTILE_SUFFIX = ".hostile"  # stored as conftest.py.hostile etc., so this repository's pytest never loads them
EXPECT_KEYS = {"seed_of_record", "description", "affects", "time_bound_s", "flags", "grade_all", "max_points", "min_points", "missing",
               "needs_jail", "decoy", "plant_reports", "listen_port", "exercises_link", "max_flags", "timeout_scale",
               "cut_note", "says", "max_grader_peak_mb"}
# Escape sequences, and lines GitHub Actions or Azure Pipelines would take as commands.
INJECTION = re.compile(r"\x1b|\x9b|^[ \t]*(::|##\[|##vso\[)", re.MULTILINE)

#: The representative subset the quick run (-m "not slow") grades: reading the instructor's files in the simulated
#: container; every other grading here is slow.
QUICK = {("import_solutions", "container")}


def _entries() -> list[str]:
    return sorted(p.name for p in CORPUS.iterdir() if (p / "expect.toml").is_file())


def _graded_in(name: str) -> tuple[str, ...]:
    """The places an entry is graded: the host always, the container when its expect.toml has a [container] table."""
    return corpus.hostile_places(name)


def _load_entry(name: str, where: str = "host") -> dict:
    """expect.toml for a grading ``where`` ("host" or "container"); see the module docstring for the keys.

    A ``[container]`` table overrides keys for the simulated container, with a
    ``why`` that says what the entry may still do there and why.
    """
    expect = tomllib.loads((CORPUS / name / "expect.toml").read_text())
    unknown = set(expect) - EXPECT_KEYS - set(PLACES)
    assert not unknown, f"{name}/expect.toml: unknown keys {unknown}"
    for place in PLACES:
        override = expect.pop(place, {})
        assert not override or override.get("why"), f"{name}/expect.toml: [{place}] must say why"
        assert set(override) - {"why"} <= EXPECT_KEYS, f"{name}/expect.toml: [{place}] has unknown keys"
        if place == where:
            expect.update({key: value for key, value in override.items() if key != "why"})
    expect.setdefault("flags", [])
    expect.setdefault("max_points", {})
    expect.setdefault("min_points", {})
    expect.setdefault("missing", [])
    assert set(expect["affects"]) <= set(EXERCISES)
    assert set(expect["max_points"]) | set(expect["min_points"]) <= set(expect["affects"])
    return expect


def _assemble(name: str, expect: dict, dest: Path) -> Path:
    dest.mkdir()
    for file in CONTRACT_FILES:
        if file not in expect["missing"]:
            shutil.copyfile(SOLUTIONS / file, dest / file)
    for path in (CORPUS / name).iterdir():
        if path.name != "expect.toml" and path.is_file():
            shutil.copyfile(path, dest / path.name.removesuffix(HOSTILE_SUFFIX))
    for file in expect["missing"]:
        (dest / file).unlink(missing_ok=True)
    return dest


# ---------------------------------------------------------------------------- processes


def _read_proc(pid: int, what: str) -> bytes:
    try:
        with open(f"/proc/{pid}/{what}", "rb") as fh:
            return fh.read()
    except OSError:
        return b""


def _processes_referencing(*paths: Path) -> list[str]:
    """Live processes whose cwd, command line or environment mention one of ``paths``."""
    needles = [str(p).encode() for p in paths]
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit() or int(entry) == os.getpid():
            continue
        pid = int(entry)
        stat = _read_proc(pid, "stat")
        if not stat or stat[stat.rfind(b")") + 2:].split()[:1] in ([b"Z"], [b"X"]):
            continue
        try:
            cwd = os.readlink(f"/proc/{pid}/cwd").encode()
        except OSError:
            cwd = b""
        blob = cwd + b"\0" + _read_proc(pid, "cmdline") + b"\0" + _read_proc(pid, "environ")
        if any(n in blob for n in needles):
            cmdline = _read_proc(pid, "cmdline").replace(b"\0", b" ")[:200]
            found.append(f"{pid}: {cmdline!r} (cwd {cwd!r})")
    return found


def _wait_no_processes(*paths: Path) -> list[str]:
    deadline = time.monotonic() + CLEANUP_GRACE_S
    while True:
        left = _processes_referencing(*paths)
        if not left or time.monotonic() > deadline:
            return left
        time.sleep(0.2)


def _kill_processes_referencing(*paths: Path) -> None:
    for line in _processes_referencing(*paths):
        try:
            os.kill(int(line.split(":")[0]), signal.SIGKILL)
        except OSError:
            pass


# ---------------------------------------------------------------------------- reports


def _digest(folder: Path) -> dict[str, str]:
    return {p.name: hashlib.sha256(p.read_bytes()).hexdigest() for p in sorted(folder.iterdir()) if p.is_file()}


def _check_schema(report: dict, exercises: list[str], seed: int = 7) -> None:
    assert set(report) == REPORT_KEYS, f"report keys {sorted(report)}"
    assert report["seed"] == seed
    assert [e["name"] for e in report["exercises"]] == exercises
    assert isinstance(report["integrity"], dict) and set(report["integrity"]) == {"flags"}
    assert set(report["isolation"]) == {"level", "reason", "layers"} and report["isolation"]["level"] in ("jail", "contained", "weak")
    assert all(isinstance(f, str) for f in report["integrity"]["flags"])
    total = 0.0
    for ex in report["exercises"]:
        assert EXERCISE_KEYS <= set(ex), f"{ex['name']}: keys {sorted(ex)}"
        assert [c["name"] for c in ex["checks"]] == list(RUBRIC[ex["name"]]), f"{ex['name']}: checks differ from the rubric"
        for check in ex["checks"]:
            assert CHECK_KEYS <= set(check)
            assert check["status"] in STATUSES, check
            assert check["score"] == (check["max_score"] if check["status"] == "passed" else 0.0), check
            assert len(check["message"]) <= 20_000, f"{ex['name']}/{check['name']}: message of {len(check['message'])} characters"
        assert ex["score"] == pytest.approx(sum(c["score"] for c in ex["checks"]))
        total += ex["score"]
    assert report["score"] == pytest.approx(total)


def _grade(submission: Path, out: Path, sandbox_tmp: Path, only: list[str] | None, timeout: float,
           timeout_scale: float = 1.0, where: str = "host", seed_of_record: int | None = None):
    """Grade as the hosts do; ``seed_of_record``: a secret seed, passed on stdin as batch and Gradescope pass a pipe."""
    seed = ["--seed", "7"] if seed_of_record is None else ["--secret-seed-fd", "0"]
    cmd = [sys.executable, "-m", "grader", "grade", str(submission), *seed,
           "--json", str(out / "result.json"), "--markdown", str(out / "summary.md"),
           "--gradescope", str(out / "results.json"), "--junit", str(out / "junit.xml"),
           "--timeout-scale", str(timeout_scale), "--throughput", "off"]  # the figure's own attacks: test_throughput.py
    if only:
        cmd += ["--only", ",".join(only)]
    env = dict(os.environ, TMPDIR=str(sandbox_tmp))
    if where == "container":
        # As root in the simulated Gradescope container; this repository (solutions/ included) is on its disk,
        # world-readable, as the instructor's checkout is on a machine that grades without namespaces.
        scratch = submission.parent
        cmd = container.container_argv(cmd, source=REPO, submission=submission, results=out,
                                       extra_ro_binds=[REPO], extra_rw_binds=[scratch, sandbox_tmp])
        env = dict(container.CONTAINER_ENV, PYTHONPATH=str(REPO), TMPDIR=str(sandbox_tmp),
                   **{key: os.environ[key] for key in ("GITHUB_TOKEN", "GRADER_TOKEN", "GRADER_SEED_KEY") if key in os.environ})
    started = time.monotonic()
    proc = subprocess.Popen(cmd, cwd=REPO, env=env, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                            stdin=subprocess.DEVNULL if seed_of_record is None else subprocess.PIPE, start_new_session=True)
    if seed_of_record is not None:
        proc.stdin.write(str(seed_of_record).encode())
        proc.stdin.close()
    streams = {}
    readers = [threading.Thread(target=lambda name=name: streams.__setitem__(name, getattr(proc, name).read()), daemon=True)
               for name in ("stdout", "stderr")]
    for reader in readers:
        reader.start()
    waited = {}
    waiter = threading.Thread(target=lambda: waited.update(zip(("pid", "status", "usage"), os.wait4(proc.pid, 0))),
                              daemon=True)
    waiter.start()
    waiter.join(timeout)
    if waiter.is_alive():
        os.killpg(proc.pid, signal.SIGKILL)
        waiter.join()
        for reader in readers:
            reader.join()
        pytest.fail(f"the grader did not finish within {timeout:.0f} s; stderr tail:\n"
                    f"{streams.get('stderr', b'')[-3000:].decode(errors='replace')}")
    for reader in readers:
        reader.join()
    proc.returncode = os.waitstatus_to_exitcode(waited["status"])
    _grade.last_peak_kb = waited["usage"].ru_maxrss  # the grading process's peak (and its reaped children's)
    return proc.returncode, time.monotonic() - started, streams["stdout"], streams["stderr"]


@pytest.fixture
def sandbox_tmp():
    """A world-searchable TMPDIR for the grader, so the sandbox user can reach its scratch dirs."""
    path = Path(tempfile.mkdtemp(prefix="hostile-corpus-"))
    os.chmod(path, 0o711)
    yield path
    _kill_processes_referencing(path)
    shutil.rmtree(path, ignore_errors=True)


def _remove_filler_files() -> None:
    """The disk filler writes outside its scratch dir (a documented sandbox limitation): tidy up."""
    for directory in ("/tmp", "/dev/shm"):
        for path in Path(directory).glob("hostile-filler-*"):
            try:
                path.unlink()
            except OSError:
                pass


@pytest.fixture(scope="module")
def reports_after_exit():
    """Report folders whose files must still be as the grader left them when the module's tests end.

    A process that outlived its grader (detached, double-forked) could rewrite a
    report later; checking every folder once at the end, instead of watching each
    for a few seconds, catches a later rewrite too and costs no idle time per entry.
    """
    watched = []  # (entry, folder, digest when its grader exited, time of exit)
    yield watched
    if watched:
        time.sleep(max(0.0, WATCH_AFTER_EXIT_S - (time.monotonic() - max(exited for *_, exited in watched))))
    changed = [f"{name}: {digest} -> {_digest(folder)}" for name, folder, digest, _ in watched if _digest(folder) != digest]
    assert not changed, f"files under a report folder changed after the grader exited: {changed}"


def _expected_level(where: str) -> str:
    """The isolation a grading here gets: the jail on this machine (where it can be made), contained in the container."""
    from grader.sandbox.expected import expected_isolation

    return "contained" if where == "container" else expected_isolation().level


def _container_reason() -> str:
    """'' where the simulated container can run and gives "contained", else why not."""
    from grader.sandbox.expected import expected_isolation

    if why := container.available():
        return why
    level = expected_isolation(jail="off")
    return "" if level.level == "contained" else level.reason


def _jail_reason() -> str:
    """'' where this machine can make the grader's jail, else why not."""
    from grader.sandbox.jail import availability

    found = availability()
    return "" if found.ok else found.reason


def _hold_port(port: int):
    """An open file holding this machine's lock on ``port``: the entry's host and container runs (on two xdist
    workers), or another checkout's suite, would otherwise bind the same fixed port at once. Closing it releases it."""
    lock = open(Path(tempfile.gettempdir()) / f"grader-test-port-{port}.lock", "w")
    fcntl.flock(lock, fcntl.LOCK_EX)
    return lock


class Listener:
    """A TCP listener on the host's loopback that records every byte it receives."""

    def __init__(self, port: int):
        self.sock = socket.create_server(("127.0.0.1", port))
        self.sock.settimeout(0.2)
        self.received = b""
        self.connections = 0
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except OSError:
                continue
            self.connections += 1
            with conn:
                conn.settimeout(1)
                try:
                    while chunk := conn.recv(65536):
                        self.received += chunk
                except OSError:
                    pass

    def close(self):
        self.stop.set()
        self.thread.join()
        self.sock.close()


def _plant_decoy(sandbox_tmp: Path) -> None:
    """A folder shaped like another grading's, holding the reference, in the grader's temp folder."""
    decoy = sandbox_tmp / "grader-sandbox-decoy" / "code" / "submission"
    decoy.mkdir(parents=True)
    for file in CONTRACT_FILES:
        shutil.copyfile(SOLUTIONS / file, decoy / file)


def _plant_reports(out: Path, victim: Path) -> None:
    """What a student could commit where the reports go: a link at the JSON path, a FIFO at the Markdown path."""
    victim.write_text("the victim's own content\n")
    (out / "result.json").symlink_to(victim)
    os.mkfifo(out / "summary.md")


def test_corpus_is_large_enough():
    entries = [_load_entry(name) for name in _entries()]
    assert len(entries) >= 38
    assert sum(e["grade_all"] for e in entries) >= 8
    assert sum("container" in _graded_in(name) for name in _entries()) >= 10, "too few entries graded in the container"


@pytest.mark.parametrize("name, where", [
    pytest.param(name, where, marks=[pytest.mark.timeout(_load_entry(name, where)["time_bound_s"] + 120)]
                 + ([] if (name, where) in QUICK else [pytest.mark.slow]))
    for name in _entries() for where in _graded_in(name)])
def test_hostile_submission(name, where, tmp_path, sandbox_tmp, monkeypatch, reports_after_exit):
    expect = _load_entry(name, where)
    if where == "host" and expect.get("needs_jail") and _jail_reason():
        pytest.skip(f"needs the bubblewrap jail: {_jail_reason()}")
    if where == "container" and (why := _container_reason()):
        pytest.skip(f"needs the simulated container at level contained: {why}")
    secrets_set = {"GITHUB_TOKEN": f"ghp_fake{secrets.token_hex(16)}",
                   "GRADER_TOKEN": f"grader-secret-{secrets.token_hex(16)}"}
    seed_of_record = None
    if expect.get("seed_of_record"):  # the course key in the grader's environment (worse than any host), its seed on a pipe
        from grader.engine.seeds import student_seed

        secrets_set["GRADER_SEED_KEY"] = f"course-key-{secrets.token_hex(16)}"
        seed_of_record = student_seed(secrets_set["GRADER_SEED_KEY"].encode(), "mallory")
    for key, value in secrets_set.items():
        monkeypatch.setenv(key, value)
    if expect.get("exercises_link"):
        return _batch_refuses_linked_exercises(expect, tmp_path, sandbox_tmp)
    submission = _assemble(name, expect, tmp_path / "submission")
    out = tmp_path / "out"
    out.mkdir()
    only = None if expect["grade_all"] else expect["affects"]
    exercises = [e for e in EXERCISES if only is None or e in only]
    if expect.get("decoy"):
        _plant_decoy(sandbox_tmp)
    if expect.get("plant_reports"):
        _plant_reports(out, tmp_path / "victim.txt")
    port_lock = _hold_port(expect["listen_port"]) if expect.get("listen_port") else None
    listener = Listener(expect["listen_port"]) if port_lock else None

    try:
        code, wall, stdout, stderr = _grade(submission, out, sandbox_tmp, only, expect["time_bound_s"] + 60,
                                            expect.get("timeout_scale", 1.0), where=where, seed_of_record=seed_of_record)
        digest = _digest(out)
        exited = time.monotonic()
        left = _wait_no_processes(sandbox_tmp, tmp_path)
    finally:
        _remove_filler_files()
        if listener is not None:
            listener.close()
            port_lock.close()
        shutil.rmtree(sandbox_tmp / "grader-sandbox-decoy", ignore_errors=True)
    err_text = stderr.decode(errors="replace")
    assert code == 0, f"exit code {code}; stderr tail:\n{err_text[-3000:]}"
    print(f"{name}: graded in {wall:.1f} s (bound {expect['time_bound_s']} s)")
    assert wall <= expect["time_bound_s"], f"grading took {wall:.1f} s, bound {expect['time_bound_s']} s"
    assert not left, f"processes left running after the grader exited: {left}"
    assert not list(sandbox_tmp.iterdir()), f"the grader left temp files: {list(sandbox_tmp.iterdir())}"
    if listener is not None:
        assert listener.connections == 0 and listener.received == b"", (
            f"the host's loopback received {listener.connections} connection(s): {listener.received[:200]!r}")
    if expect.get("plant_reports"):
        assert (tmp_path / "victim.txt").read_text() == "the victim's own content\n", "a report was written through the link"
        assert not (out / "result.json").is_symlink() and (out / "summary.md").is_file()

    # The report is the grader's own: nothing changes after it exited (checked again at the end).
    assert _digest(out) == digest, "files under the report folder changed after the grader exited"
    assert set(digest) == {"result.json", "summary.md", "results.json", "junit.xml"}
    reports_after_exit.append((name, out, digest, exited))

    sizes = {name: (out / name).stat().st_size for name in digest}
    assert sizes["result.json"] <= REPORT_CAPS["json"] and sizes["results.json"] <= REPORT_CAPS["json"], sizes
    assert sizes["summary.md"] <= REPORT_CAPS["markdown"], sizes
    report = json.loads((out / "result.json").read_text())
    _check_schema(report, exercises, 7 if seed_of_record is None else seed_of_record)
    assert report["isolation"]["level"] == _expected_level(where), report["isolation"]
    gradescope = json.loads((out / "results.json").read_text())
    assert gradescope == json.loads(to_gradescope(GradeResult.from_dict(report))), "results.json is not the grader's own"
    if "max_grader_peak_mb" in expect:
        peak_mb = _grade.last_peak_kb / 1024
        print(f"{name}: the grading process's peak resident memory: {peak_mb:.0f} MB")
        assert peak_mb <= expect["max_grader_peak_mb"], f"the grading process peaked at {peak_mb:.0f} MB"
    checks = {c["name"]: c for e in report["exercises"] for c in e["checks"]}
    for check, text in expect.get("says", {}).items():
        assert checks[check]["status"] != "passed" and text in checks[check]["message"], checks[check]
    if expect.get("cut_note"):
        texts = [e["note"] for e in report["exercises"]] + [c["message"] for e in report["exercises"] for c in e["checks"]]
        assert any("characters cut by the grader" in t or "refused the answer unread" in t for t in texts), \
            "no message says that a text was cut or refused unread"
    assert report["timeout_scale"] == expect.get("timeout_scale", 1.0)
    scores = {e["name"]: e["score"] for e in report["exercises"]}
    full = {e["name"]: e["max_score"] for e in report["exercises"]}
    for exercise, most in expect["max_points"].items():
        assert scores[exercise] <= most, f"{exercise} scored {scores[exercise]} > {most}: {report['exercises']}"
    for exercise, least in expect["min_points"].items():
        assert scores[exercise] >= least, f"{exercise} scored {scores[exercise]} < {least}: {report['exercises']}"
    if expect["grade_all"]:
        for exercise in EXERCISES:
            if exercise not in expect["affects"]:
                assert scores[exercise] == full[exercise], f"unaffected {exercise} lost points: {report['exercises']}"
    flags = report["integrity"]["flags"]
    for wanted in expect["flags"]:
        assert any(wanted in flag for flag in flags), f"no integrity flag containing {wanted!r} in {flags}"
    if "max_flags" in expect:
        assert len(flags) <= expect["max_flags"], f"{len(flags)} integrity flags"
        assert len((out / "result.json").read_bytes()) < 200_000

    texts = {"stdout": stdout.decode(errors="replace"), "stderr": err_text,
             "json": (out / "result.json").read_text(), "markdown": (out / "summary.md").read_text(),
             "junit": (out / "junit.xml").read_text(),
             "gradescope": (out / "results.json").read_text()}
    for key, value in secrets_set.items():
        for where, text in texts.items():
            assert value not in text, f"the secret {key} appears in the {where}"
    if seed_of_record is not None:  # the JSON report keeps the seed of record (for the instructor): nowhere else
        shown = {**texts, "json": json.dumps({k: v for k, v in report.items() if k != "seed"})}
        assert "LOOT" in shown["json"], "the hunt ran (else this proves nothing)"
        for where, text in shown.items():
            assert str(seed_of_record) not in text, f"the seed of record appears in the {where}"
    for where, text in texts.items():
        strings = "\n".join(_strings(json.loads(text))) if where in ("json", "gradescope") else text
        found = INJECTION.search(strings)
        assert found is None, f"the {where} carries {found.group(0)!r}, an escape or a workflow command"


def _strings(value) -> list[str]:
    """Every string in a JSON value (the JSON text itself escapes control characters)."""
    if isinstance(value, str):
        return [value]
    if isinstance(value, dict):
        return [s for v in value.values() for s in _strings(v)]
    if isinstance(value, list):
        return [s for v in value for s in _strings(v)]
    return []


def _batch_refuses_linked_exercises(expect: dict, tmp_path: Path, sandbox_tmp: Path) -> None:
    """Row 2 of the jail issue: a student's ``exercises`` links into the grader's repository."""
    student = tmp_path / "class" / "mallory"
    student.mkdir(parents=True)
    (student / "exercises").symlink_to(expect["exercises_link"])
    out = tmp_path / "out"
    cmd = [sys.executable, "-m", "grader", "batch", str(tmp_path / "class"), "--out", str(out), "--jobs", "1"]
    proc = subprocess.run(cmd, cwd=REPO, env=dict(os.environ, TMPDIR=str(sandbox_tmp)), capture_output=True,
                          text=True, timeout=expect["time_bound_s"])
    assert proc.returncode == 0, proc.stderr[-3000:]
    rows = list(csv.DictReader((out / "gradebook.csv").open(encoding="utf-8")))
    assert [(r["student"], r["status"]) for r in rows] == [("mallory", "grader error")], rows
    assert "symbolic link" in rows[0]["error"], rows[0]
    assert not (out / "results" / "mallory.json").exists()


def _grade_solutions(tmp_path: Path, only: list[str] | None, run: int) -> dict:
    out = tmp_path / f"out{run}"
    out.mkdir()
    sandbox_tmp = Path(tempfile.mkdtemp(prefix="hostile-corpus-"))
    os.chmod(sandbox_tmp, 0o711)
    try:
        code, _wall, _stdout, stderr = _grade(SOLUTIONS, out, sandbox_tmp, only, 600)
    finally:
        shutil.rmtree(sandbox_tmp, ignore_errors=True)
    assert code == 0, stderr.decode(errors="replace")[-3000:]
    return json.loads((out / "result.json").read_text())


def _stable(report: dict) -> dict:
    """The report without what may differ between runs: durations, timestamps and captured output.

    The output can differ: multiprocessing's resource_tracker sometimes warns
    about leaked semaphores when spawn/forkserver workers shut down.
    """
    report = json.loads(json.dumps(report))
    for key in ("duration_s", "started_at", "phases"):
        report.pop(key)
    for ex in report["exercises"]:
        for check in ex["checks"]:
            check.pop("duration_s", None)
            check.pop("output", None)
    return report


#: How often the reference is graded whole by :func:`test_the_solutions_grade_identically_every_time`.
SOLUTION_GRADINGS = 2


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_solutions_grade_identically_every_time(tmp_path):
    """The reference, graded whole :data:`SOLUTION_GRADINGS` times with one seed: full marks and the same report
    each time (but for durations, timestamps and captured output), so no check depends on timing or chance. Each
    grading starts fork, forkserver and spawn DataLoader workers (collate's and tokens' worker checks), the checks
    most exposed to timing."""
    runs = [_stable(_grade_solutions(tmp_path, None, i)) for i in range(SOLUTION_GRADINGS)]
    assert [r["score"] for r in runs] == [runs[0]["max_score"]] * SOLUTION_GRADINGS
    for later in runs[1:]:
        assert later == runs[0]
