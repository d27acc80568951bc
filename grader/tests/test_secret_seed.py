"""A seed of record never stands on a command line (issue 31, item 1): every caller of ``grade`` passes it on a pipe.

Each caller's ``subprocess.run`` is replaced by one that records the
command line and reads the descriptor it was told of, as ``grade`` would.
The hostile entry ``seed_hunter`` (test_corpus_hostile.py) shows the same from
inside the sandbox, in the jail and at level contained.
"""

from __future__ import annotations

import os
import subprocess
from pathlib import Path

import pytest

from grader.engine.results import GradeResult
from grader.engine.secret_seed import read_seed, seed_pipe

SEED = 1_234_567_891


class Recorder:
    """Stands in for subprocess.run: the command line, and the seed read from --secret-seed-fd."""

    def __init__(self):
        self.cmd, self.seed = None, None

    def __call__(self, cmd, **kwargs):
        self.cmd = [str(part) for part in cmd]
        if "--secret-seed-fd" in self.cmd:
            fd = int(self.cmd[self.cmd.index("--secret-seed-fd") + 1])
            assert fd in kwargs.get("pass_fds", ()), "the descriptor is handed to the child"
            self.seed = read_seed(os.dup(fd))
        return subprocess.CompletedProcess(cmd, 1, "", "stopped by the test")


def test_batch_passes_the_seed_of_record_on_a_pipe(tmp_path, monkeypatch):
    from grader.tools.class_grading import grade_class as batch

    recorder = Recorder()
    monkeypatch.setattr(batch.subprocess, "run", recorder)
    batch.grade_one("ada", tmp_path, tmp_path, SEED, 10, [], secret=True)
    assert str(SEED) not in " ".join(recorder.cmd) and recorder.seed == SEED, recorder.cmd


def test_regrade_passes_the_seed_of_record_on_a_pipe(tmp_path, monkeypatch):
    from grader.tools.class_grading import regrade_diff as regrade

    recorder = Recorder()
    monkeypatch.setattr(regrade.subprocess, "run", recorder)
    original = GradeResult(exercises=[], seed=SEED, duration_s=0.0, seed_secret=True)
    with pytest.raises(regrade.RegradeError):
        regrade.regrade(original, tmp_path)
    assert str(SEED) not in " ".join(recorder.cmd) and recorder.seed == SEED, recorder.cmd


@pytest.mark.parametrize("text, problem", [(b"12x", "expected a whole number"), (b"", "expected a whole number"),
                                            (b"9" * 40, "expected a whole number")])
def test_a_bad_seed_on_the_descriptor_is_a_clear_error(text, problem):
    read, write = os.pipe()
    os.write(write, text)
    os.close(write)
    with pytest.raises(ValueError, match=problem):
        read_seed(read)


def test_the_pipe_holds_the_seed_and_nothing_else():
    assert read_seed(seed_pipe(SEED)) == SEED
    assert not Path("/proc/self/cmdline").read_bytes().count(str(SEED).encode())
