"""The lab runner, run in its own process as a student would run it.

Asserts experiments (a)-(c): duplicates without sharding, exactly once with
it, identical reruns with seed_worker, and less padding with bucketing.
Throughput (d) depends on the machine and is never asserted.
"""

import json
import subprocess
import sys

import pytest

pytestmark = [pytest.mark.lab, pytest.mark.slow, pytest.mark.sharding, pytest.mark.seeding, pytest.mark.bucketing]


@pytest.fixture(scope="module")
def lab_report(lab, tmp_path_factory, pytestconfig):
    out = tmp_path_factory.mktemp("lab")
    # stderr goes to a file: the forkserver inherits a stderr pipe, and reading
    # that pipe to EOF would wait for the server to exit.
    with open(out / "stderr.txt", "w") as stderr:
        subprocess.run(
            [sys.executable, "-m", f"{lab.package}.lab", "--only", "abc", "--json", str(out / "lab.json")],
            cwd=pytestconfig.rootpath,
            stdout=subprocess.DEVNULL,
            stderr=stderr,
            timeout=240,
        )
    path = out / "lab.json"
    assert path.exists(), f"the lab wrote no results; its stderr:\n{(out / 'stderr.txt').read_text()[-2000:]}"
    return json.loads(path.read_text())["experiments"]


def result(report, letter):
    entry = report[letter]
    if entry["status"] == "not implemented":
        raise NotImplementedError(entry["detail"])
    assert entry["status"] in ("ok", "unexpected"), f"experiment ({letter}) failed: {entry.get('detail')}"
    return entry["result"]


@pytest.mark.timeout(300)
def test_a_unsharded_duplicates_then_exactly_once(lab_report):
    r = result(lab_report, "a")
    assert r["unsharded_duplicates"] == 2000
    assert r["sharded_exactly_once"] and r["sharded_yielded"] == 2000


@pytest.mark.timeout(300)
def test_b_reruns_identical_workers_and_epochs_differ(lab_report):
    r = result(lab_report, "b")
    assert r["rerun_identical"] and r["workers_differ"] and r["epochs_differ"]


@pytest.mark.timeout(300)
def test_c_bucketing_cuts_padding(lab_report):
    r = result(lab_report, "c")
    assert 0.35 <= r["random_padded_fraction"] <= 0.55
    assert r["bucketed_padded_fraction"] <= 0.03
