"""Small helpers the jail issue asked for: tree removal, report files, clean text, typed messages."""

from __future__ import annotations

import json
import os
import re._parser as sre_parse
import subprocess
import sys
import threading
from pathlib import Path

import pytest

from grader.paths import REPO
from grader.report_files import ReportPathError, append_text, write_text
from grader.shared.common import remove_tree
from grader.shared.messages import Flag, MessageError, ProbeResult, RunRequest, decode, encode
from grader.text import clean_text


def _chain(top: Path, depth: int) -> None:
    """A ``depth``-deep chain of folders below ``top``, deeper than PATH_MAX allows by name."""
    fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    for _ in range(depth):
        os.mkdir("d", dir_fd=fd)
        inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
        os.close(fd)
        fd = inner
    os.close(fd)


@pytest.mark.slow
def test_remove_tree_survives_deep_chains_locked_folders_and_links(tmp_path):
    outside = tmp_path / "outside.txt"
    outside.write_text("keep me")
    top = tmp_path / "scratch"
    top.mkdir()
    _chain(top, 3000)
    (top / "wide").mkdir()
    for i in range(200):
        (top / "wide" / f"f{i}").write_text("x")
    (top / "link").symlink_to(outside)
    (top / "dirlink").symlink_to(tmp_path)
    (top / "locked").mkdir()
    (top / "locked" / "inner").write_text("x")
    os.chmod(top / "locked", 0)
    os.mkfifo(top / "fifo")
    try:
        remove_tree(top)
    finally:
        if top.exists():  # pytest's own clean-up of old temp folders would overflow on the chain
            subprocess.run(["rm", "-rf", str(top)], check=False)
    assert not top.exists()
    assert outside.read_text() == "keep me"
    remove_tree(top)  # a missing folder is fine


@pytest.mark.slow
def test_remove_tree_runs_in_a_small_stack(tmp_path):
    """No recursion: a 3,000-deep chain goes even with a recursion limit of 60."""
    top = tmp_path / "deep"
    top.mkdir()
    _chain(top, 3000)
    code = ("import sys; from grader.shared.common import remove_tree; sys.setrecursionlimit(60); "
            f"remove_tree({str(top)!r})")
    try:
        subprocess.run([sys.executable, "-c", code], cwd=REPO, check=True, timeout=60)
        assert not top.exists()
    finally:
        remove_tree(top)  # pytest's own clean-up of old temp folders would overflow on the chain


def test_report_replaces_a_planted_link_and_fifo_without_writing_through(tmp_path):
    victim = tmp_path / "victim.txt"
    victim.write_text("mine")
    out = tmp_path / "out"
    out.mkdir()
    (out / "r.json").symlink_to(victim)
    os.mkfifo(out / "r.md")
    done = threading.Event()

    def write():
        write_text(out / "r.json", "{}\n")
        write_text(out / "r.md", "# report\n")
        done.set()

    thread = threading.Thread(target=write, daemon=True)
    thread.start()
    thread.join(10)
    assert done.is_set(), "writing a report blocked on a FIFO"
    assert victim.read_text() == "mine"
    assert (out / "r.json").read_text() == "{}\n" and not (out / "r.json").is_symlink()
    assert (out / "r.md").read_text() == "# report\n"
    assert sorted(p.name for p in out.iterdir()) == ["r.json", "r.md"]  # no temporary file left


def test_report_folder_reached_through_a_planted_link_is_refused(tmp_path):
    target = tmp_path / "elsewhere"
    target.mkdir()
    link = tmp_path / "reports"
    link.symlink_to(target)
    if os.geteuid() == 0:
        os.lchown(link, 1000, 1000)  # a link a student committed is not root's
    with pytest.raises(ReportPathError, match="reports is a symbolic link"):
        write_text(link / "r.json", "{}")
    assert list(target.iterdir()) == []
    write_text(tmp_path / "new" / "deeper" / "r.json", "{}")  # missing folders are made
    with pytest.raises(ReportPathError, match="is a folder"):
        write_text(tmp_path / "new", "{}")


def test_append_refuses_a_fifo(tmp_path):
    summary = tmp_path / "summary.md"
    append_text(summary, "a\n")
    append_text(summary, "b\n")
    assert summary.read_text() == "a\nb\n"
    os.mkfifo(tmp_path / "fifo")
    with pytest.raises(ReportPathError):
        append_text(tmp_path / "fifo", "x")


@pytest.mark.parametrize("raw, clean", [
    ("plain\ttext\nline", "plain\ttext\nline"),
    ("\x1b[31mred\x1b[0m \x1b]0;title\x07bell\x07", "red bell"),
    ("a\r\nb\rc\x00d\x9b", "a\nb\ncd"),
    ("ok\n::error file=x::pwned\n  ::add-mask::s\n##[error]x\n##vso[task]y",
     "ok\n: :error file=x::pwned\n  : :add-mask::s\n# #[error]x\n# #vso[task]y"),
    ("a ::not a command", "a ::not a command"),
])
def test_clean_text(raw, clean):
    assert clean_text(raw) == clean


def test_messages_round_trip_and_reject_forgeries():
    request = RunRequest(id=1, probe="p:q", args={"a": [1, 2]}, timeout=3.0)
    assert decode(encode(request), RunRequest) == request
    result = ProbeResult("ok", data={"x": 1}, flags=[Flag("hook", "sys.settrace", "p:q")])
    assert decode(encode(result), ProbeResult) == result
    for bad in ({"type": "ProbeResult", "body": {"status": "ok", "extra": 1}},
                {"type": "ProbeResult", "body": {"status": 3}},
                {"type": "ProbeResult", "body": {"status": "ok", "flags": ["replaced x"]}},
                {"type": "Exit", "body": {}},
                {"type": "os.system", "body": {}},
                ["not", "a", "frame"]):
        with pytest.raises(MessageError):
            decode(bad, ProbeResult)


def test_bounded_keeps_a_few_distinct_short_flags():
    flags = [Flag("replaced", f"name{i % 50}" + "x" * 500, "p:q") for i in range(10_000)]
    bounded = ProbeResult("ok", flags=flags).bounded()
    assert len(bounded.flags) == 24 and len(set(bounded.flags)) == 24
    assert all(len(flag.name) <= 200 for flag in bounded.flags)


# ------------------------------------------------------------------ the receiving end: bounded text


@pytest.mark.parametrize("text", ["short", "x" * 100_000, "line\n" * 50_000, "a\n" + "b" * 90_000 + "\nc"])
@pytest.mark.parametrize("limit", [80, 500, 4000])
def test_cut_text_keeps_head_and_tail_within_the_limit(text, limit):
    from grader.shared.messages import cut_text

    cut = cut_text(text, limit)
    assert len(cut) <= limit
    if len(text) <= limit:
        assert cut == text
    else:
        head, note, tail = cut.split("\n[... ", 1)[0], cut.split("[... ", 1)[1].split(" ...]")[0], cut.rsplit("...]\n", 1)[1]
        assert text.startswith(head) and text.endswith(tail)
        assert note == f"{len(text) - len(head) - len(tail):,} characters cut by the grader"
        if text.startswith("line\n"):
            assert head.endswith("line") and tail.startswith("line"), "a cut falls on a line boundary"


def test_bounded_cuts_every_text_field_of_a_result():
    from grader.shared.messages import TEXT_LIMITS

    huge = "y" * 1_000_000
    bounded = ProbeResult("error", error=huge, error_type=huge, traceback=huge, output=huge).bounded()
    for name, limit in TEXT_LIMITS.items():
        assert len(getattr(bounded, name)) <= limit


def test_the_result_model_bounds_every_text_and_the_writers_fit_their_caps():
    from grader.engine.results import TEXT_LIMITS, CheckResult, ExerciseResult, GradeResult
    from grader.writers import to_console, to_gradescope, to_json, to_markdown
    from grader.writers.formatting import JSON_REPORT_BYTES, MARKDOWN_REPORT_BYTES

    huge = "é" * 2_000_000  # two bytes each in UTF-8
    checks = [CheckResult(name=f"c{i}", exercise="collate", status="failed", score=0, max_score=1, message=huge, output=huge)
              for i in range(60)]
    result = GradeResult(exercises=[ExerciseResult("collate", checks, note=huge)], seed=1, duration_s=1.0,
                         integrity_flags=[huge] * 100)
    assert len(result.exercises[0].note) <= TEXT_LIMITS["note"] and len(result.integrity_flags) == 40
    assert all(len(c.message) <= TEXT_LIMITS["message"] and len(c.output) <= TEXT_LIMITS["output"] for c in checks)
    assert len(to_json(result).encode()) <= JSON_REPORT_BYTES
    assert len(to_gradescope(result).encode()) <= JSON_REPORT_BYTES
    assert len(to_markdown(result).encode()) <= MARKDOWN_REPORT_BYTES
    assert len(to_console(result).encode()) <= 4 * MARKDOWN_REPORT_BYTES
    assert GradeResult.from_dict(json.loads(to_json(result))).score == result.score


def test_a_report_that_fits_is_not_cut():
    from grader.engine.results import CheckResult, ExerciseResult, GradeResult
    from grader.writers import to_json

    result = GradeResult(exercises=[ExerciseResult("collate", [CheckResult("c", "collate", "failed", 0, 1, message="m" * 3000)])],
                         seed=1, duration_s=1.0)
    assert GradeResult.from_dict(json.loads(to_json(result))) == result


# ------------------------------------------------------------------ stub detection in linear time


def _stub_patterns():
    """The grader's stub matcher and the public tests' twin (tests/conftest.py, loaded under a name of its own)."""
    import importlib.util

    from grader.engine import checking

    spec = importlib.util.spec_from_file_location("public_tests_conftest", REPO / "tests" / "conftest.py")
    public_conftest = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(public_conftest)
    return [checking._STUB_MESSAGE, public_conftest._NOT_DONE]


def test_stub_detection_cannot_backtrack():
    """Checked by construction, not by a timer: every repeat is possessive (never gives characters back)
    and a match may start only where a name starts, so the search is linear in the text."""
    for pattern in _stub_patterns():
        parsed = sre_parse.parse(pattern.pattern)
        repeats = [op for op in _opcodes(parsed) if "REPEAT" in op]
        assert repeats and all(op == "POSSESSIVE_REPEAT" for op in repeats), (pattern.pattern, repeats)
        assert str(parsed[0][0]) == "ASSERT_NOT", "a match must not start in the middle of a name"
        assert pattern.search("w" * 1_000_000) is None  # finishes at once (the old pattern: 6 s for 40,000)


def _opcodes(parsed):
    """Every opcode of a parsed pattern, nested ones included."""
    for op, arg in parsed:
        yield str(op)
        for part in arg if isinstance(arg, (list, tuple)) else ():
            if isinstance(part, sre_parse.SubPattern):
                yield from _opcodes(part)


@pytest.mark.parametrize("text, found", [
    ("collate.py: pad_collate is not implemented yet (see LAB.md)", "collate.py: pad_collate is not implemented yet (see LAB.md)"),
    ("NotImplementedError: sharding.py: ShardedRange.__iter__ is not implemented yet; read\nmore",
     "sharding.py: ShardedRange.__iter__ is not implemented yet; read"),
    ("Caught NotImplementedError in DataLoader worker process 0.\nOriginal Traceback:\n  x: y is not implemented yet",
     "x: y is not implemented yet"),
    ("foo: bar baz is not implemented yet", None),
    ("nothing to see", None),
])
def test_stub_detection_finds_the_stub_line(text, found):
    for pattern in _stub_patterns():
        match = pattern.search(text)
        assert (match.group(0) if match else None) == found
