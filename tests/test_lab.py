"""The lab runner, one experiment at a time, in its own process as you would run it.

Each experiment needs only its own exercise and carries only that
exercise's marker: ``pytest -m sharding`` runs experiment (a),
``-m seeding`` (b), ``-m bucketing`` (c), ``-m tokens`` (d); the experiments
start workers, so ``-m "<exercise> and not workers"`` leaves them out. Every claim
an experiment prints (its ``[ok]``/``[NO]`` lines) is asserted; the
throughput figures of (d) depend on the machine and are only required to
be measured.
"""

import json
import subprocess
import sys

import numpy as np
import pytest
from lab_helpers import fails_here_if_not_done, seed_worker_here

EXPERIMENTS = {"a": "sharding", "b": "seeding", "c": "bucketing", "d": "tokens"}


def call_the_exercise(lab, letter, tmp_path):
    """One tiny call into the exercise an experiment needs."""
    if letter == "a":
        list(lab.sharding.ShardedRange(4))
    elif letter == "b":
        seed_worker_here(lab)
    elif letter == "c":
        list(lab.bucketing.BucketBatchSampler([3, 1, 2], 2))
    else:
        np.arange(16, dtype=np.uint16).tofile(tmp_path / "tiny.bin")
        lab.tokens.TokenWindows(tmp_path / "tiny.bin", 4)[0]


def run_experiment(lab, letter, tmp_path, rootpath):
    """The lab's JSON entry for one experiment, run with ``python -m <package>.lab --only <letter>``.

    An exercise that is still a stub fails first, in this process, without starting the lab (seconds).
    """
    fails_here_if_not_done(lambda: call_the_exercise(lab, letter, tmp_path))
    # stderr goes to a file: the forkserver inherits a stderr pipe, and reading
    # that pipe to EOF would wait for the server to exit.
    with open(tmp_path / "stderr.txt", "w") as stderr:
        subprocess.run(
            [sys.executable, "-m", f"{lab.package}.lab", "--only", letter, "--repeats", "1", "--samples", "2000",
             "--json", str(tmp_path / "lab.json")],
            cwd=rootpath, stdout=subprocess.DEVNULL, stderr=stderr, timeout=240,
        )
    path = tmp_path / "lab.json"
    assert path.exists(), f"the lab wrote no results; its stderr:\n{(tmp_path / 'stderr.txt').read_text()[-2000:]}"
    entry = json.loads(path.read_text())["experiments"][letter]
    if entry["status"] == "not implemented":
        raise NotImplementedError(entry["detail"])
    assert entry["status"] in ("ok", "unexpected"), f"experiment ({letter}) failed: {entry.get('detail')}"
    return entry


def experiment(letter):
    return pytest.param(letter, marks=[getattr(pytest.mark, EXPERIMENTS[letter]), pytest.mark.lab, pytest.mark.workers,
                                       pytest.mark.slow, pytest.mark.timeout(300)], id=f"{letter}_{EXPERIMENTS[letter]}")


@pytest.mark.parametrize("letter", [experiment(letter) for letter in EXPERIMENTS])
def test_experiment_shows_what_the_handout_says(lab, letter, tmp_path, pytestconfig, record_property):
    """Every [ok] line of the experiment holds; (d) also measures its six throughput setups and the raw gather."""
    entry = run_experiment(lab, letter, tmp_path, pytestconfig.rootpath)
    failed = [claim for claim, ok in entry["checks"].items() if not ok]
    record_property("claims_not_shown", "; ".join(failed))  # for the grader's own tests, which read the JUnit report
    assert not failed, (f"experiment ({letter}) printed [NO] for: {'; '.join(failed)} (each [ok] line is a claim about your "
                        f"code: see LAB.md); its figures: {entry['result']}")
    if letter == "d":
        rates = entry["result"]["samples_per_s"]
        setups = {f"{workers} workers, {level}" for workers in (0, 2) for level in ("per item", "__getitems__", "whole batches")}
        assert set(rates) == setups, f"experiment (d) should measure {sorted(setups)}, measured {sorted(rates)}"
        assert all(rate > 0 for rate in rates.values()), f"every setup of experiment (d) should yield samples, measured {rates}"
        assert entry["result"]["raw_gather_per_s"] > 0, "experiment (d) should measure the raw gather's ceiling"
