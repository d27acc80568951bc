"""grader/inside/tracebacks.py: the student's frames, the library call that raised, no machine paths."""

from __future__ import annotations

import linecache
import sys

from grader.inside import tracebacks
from grader.inside.tracebacks import Frame

STUDENT = "/jail/code/submission"
WORKER_TEXT = """\
  File "/venv/lib/python3.11/site-packages/torch/utils/data/_utils/worker.py", line 374, in _worker_loop
    data = fetcher.fetch(index)
           ^^^^^^^^^^^^^^^^^^^^
  File "/jail/code/submission/collate.py", line 9, in pad_collate
    _helper(batch[0])
  File "/jail/code/submission/collate.py", line 4, in _helper
    return seq.tolist()[5]
           ~~~~~~~~~~~~^^^
IndexError: list index out of range
"""
DUMP = """\
worker output before
Thread 0x00007f01 (most recent call first):
  File "/usr/lib/python3.11/threading.py", line 327 in wait
  File "/jail/lib/grader/inside/probes/common.py", line 80 in run

Current thread 0x00007f02 (most recent call first):
  File "/jail/code/submission/tokens.py", line 120 in __getitem__
  File "/venv/lib/python3.11/site-packages/torch/utils/data/_utils/fetch.py", line 52 in fetch
after
"""


def test_a_workers_traceback_text_is_parsed_into_frames_and_the_error():
    frames, final = tracebacks.parse_traceback(WORKER_TEXT)
    assert [(f.name, f.line) for f in frames] == [("_worker_loop", 374), ("pad_collate", 9), ("_helper", 4)]
    assert frames[2].code == "return seq.tolist()[5]" and final == "IndexError: list index out of range"


def test_a_recursion_in_a_worker_ends_in_its_error_not_in_pythons_repeat_line():
    text = WORKER_TEXT.replace("IndexError: list index out of range", "  [Previous line repeated 996 more times]\nRecursionError: deep")
    assert tracebacks.parse_traceback(text)[1] == "RecursionError: deep"


def test_render_keeps_the_students_frames_and_the_library_call_that_raised():
    frames = [Frame("/venv/lib/python3.11/site-packages/torch/x.py", 1, "outer"), Frame(f"{STUDENT}/collate.py", 3, "mine"),
              Frame("/venv/lib/python3.11/site-packages/torch/nn/functional.py", 9, "pad")]
    shown = tracebacks.render(frames, STUDENT)
    assert shown.splitlines() == ["Traceback (your code, innermost last):", '  File "collate.py", line 3, in mine',
                                  '  File "torch/nn/functional.py", line 9, in pad']
    assert tracebacks.render(frames[:1], STUDENT, only_with_student_frames=True) == ""


def test_a_long_recursion_is_cut_between_frames():
    frames = [Frame(f"{STUDENT}/collate.py", 5, "again")] * 1000
    lines = tracebacks.render(frames, STUDENT).splitlines()
    assert len(lines) == 1 + tracebacks.MAX_FRAMES + 1
    assert lines[1 + tracebacks.HEAD_FRAMES] == f"  ... {1000 - tracebacks.MAX_FRAMES} frames left out ..."


def test_a_real_recursion_100000_frames_deep_reads_only_the_source_lines_it_shows(tmp_path, monkeypatch):
    """frames_of makes one Frame per (code, line) of a real traceback, and render reads the source of the frames it
    shows only: the depth costs no file lookups (the hostile corpus's unbounded_recursion recurses less deep, to
    keep the suite short)."""
    depth = 100_000
    student = tmp_path / "submission"
    student.mkdir()
    (student / "collate.py").write_text("def down(n):\n    return down(n + 1) + 1\n")
    code = compile((student / "collate.py").read_text(), str(student / "collate.py"), "exec")
    namespace = {}
    exec(code, namespace)
    limit = sys.getrecursionlimit()
    sys.setrecursionlimit(depth)
    try:
        namespace["down"](0)
    except RecursionError as exc:
        frames = tracebacks.frames_of(exc)
    finally:
        sys.setrecursionlimit(limit)
    assert len(frames) > depth * 0.99 and len({id(f) for f in frames}) <= 3
    lookups = []
    real_getline = linecache.getline
    monkeypatch.setattr(linecache, "getline", lambda *args: lookups.append(args) or real_getline(*args))
    lines = tracebacks.render(frames, str(student)).splitlines()
    assert len(lines) <= 1 + 2 * tracebacks.MAX_FRAMES + 1 and "frames left out" in "\n".join(lines)
    assert len(lookups) <= tracebacks.MAX_FRAMES, f"{len(lookups)} source lookups for {len(frames)} frames"


def test_dumps_are_parsed_outermost_first_and_stripped_from_the_output():
    stacks = tracebacks.parse_dump(DUMP)
    assert [[f.name for f in stack] for stack in stacks] == [["run", "wait"], ["fetch", "__getitem__"]]
    assert tracebacks.strip_dumps(DUMP) == "worker output before\n\nafter\n"


def test_paths_are_shown_relative_to_the_submission_or_the_package():
    assert tracebacks.display_path(f"{STUDENT}/tokens.py", STUDENT + "/") == "tokens.py"
    assert tracebacks.display_path("/root/.venv/lib/python3.11/site-packages/numpy/core/x.py", STUDENT + "/") == "numpy/core/x.py"
    assert tracebacks.display_path("/root/.pyenv/versions/3.11.7/lib/python3.11/threading.py", STUDENT + "/") == "threading.py"
    assert tracebacks.display_path("/jail/lib/grader/inside/probes/common.py", STUDENT + "/") == "grader/inside/probes/common.py"


def test_the_resource_trackers_shutdown_report_is_not_the_students_output():
    """Two gradings of the same files differed only by this report (test_workflows' push-feedback test): it is left out,
    and what the student printed around it is kept."""
    from grader.engine.checking import without_shutdown_noise

    noise = ("/usr/lib/python3.11/multiprocessing/resource_tracker.py:254: UserWarning: resource_tracker: There appear "
             "to be 2 leaked semaphore objects to clean up at shutdown\n  warnings.warn('resource_tracker: There appear "
             "to be %d '\n")
    assert without_shutdown_noise(noise) == ""
    assert without_shutdown_noise(f"mine before\n{noise}mine after\n") == "mine before\nmine after\n"
    assert without_shutdown_noise("leaked semaphore objects, said the student\n") == "leaked semaphore objects, said the student\n"
