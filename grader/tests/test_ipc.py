"""System V IPC and POSIX message queues are closed to probes at every level, and nothing of them outlives a probe
(grader/docs/DESIGN.md, principle 3; issue 47, finding 1).

A probe (ipc_probes.shm_counter) increments a counter in a 0666 segment of a
fixed key, as a submission could to pass state from one probe (or one
student's grading) to the next. It runs three times in one sandbox and once
in a second, separate sandbox, in the jail (its own IPC namespace for the
grading) and "contained" (no namespaces, as on Gradescope: the machine's IPC
namespace, shared with the next grading). The seccomp filter refuses shmget,
msgget, semget and mq_open (EPERM), so every probe counts only itself (1),
and once both sandboxes are closed no object of either probe uid is left.

Without the filter (``kernel_layers=False``: "jail" or "weak", a uid of the
probes' own) the calls succeed, and the zygote's clean-up after each probe
(grader/inside/ipc.py) removes the objects: the counter is 1 there too.
What that clean-up cannot find (a POSIX queue, without /dev/mqueue) this
test removes itself.
"""

from __future__ import annotations

import ctypes
import os
import secrets
from pathlib import Path

import pytest

from grader.inside import ipc
from grader.sandbox import Sandbox
from grader.sandbox.expected import expected_isolation

PROBES = "grader.tests.ipc_probes"
KEY = 0x47C0FFEE  # fixed, as a submission's would be: the next grading finds the same segment
RUNS = (3, 1)  # probes in the first sandbox, then in the second
_libc = ctypes.CDLL(None, use_errno=True)
needs_root = pytest.mark.skipif(os.geteuid() != 0, reason="the clean-up needs a uid of the probes' own (root)")


@pytest.fixture(scope="module")
def student(tmp_path_factory) -> Path:
    folder = tmp_path_factory.mktemp("ipc-student")
    (folder / "collate.py").write_text("def pad_collate(batch, pad_id=None):\n    return batch\n")
    return folder


def _grade_twice(student: Path, **options) -> dict:
    """Run the probes in two sandboxes one after the other: counters, errnos, what the second saw left, the uids."""
    seen = {"counters": [], "errnos": set(), "other": [], "uids": [], "levels": set(), "left inside": None}
    queue = f"/grader-test-{secrets.token_hex(4)}"
    for runs in RUNS:
        with Sandbox(student, preload=(), probe_modules=(PROBES,), **options) as box:
            seen["uids"].append(box.probe_uid)
            seen["levels"].add(box.isolation.level)
            for _ in range(runs):
                result = box.run(f"{PROBES}:shm_counter", {"key": KEY}, timeout=20)
                assert result.status == "ok", result
                seen["counters"].append(result.data["counter"])
                seen["errnos"].add(result.data["errno"])
            result = box.run(f"{PROBES}:other_ipc", {"key": KEY, "queue": queue}, timeout=20)
            assert result.status == "ok", result
            seen["other"].append(result.data)
            result = box.run(f"{PROBES}:leftovers", timeout=20)
            assert result.status == "ok", result
            seen["left inside"] = result.data  # after the clean-up of the probes before it
    _libc.mq_unlink(queue.encode())  # where mq_open was not refused: no /dev/mqueue here to find it by
    return seen


def _left_of(uids: list[int]) -> list:
    """What /proc/sysvipc (this machine's IPC namespace) still holds of ``uids`` (or of the test's key)."""
    left = [(uid, found) for uid in uids if uid is not None for found in ipc.objects_of(uid)]
    for kind in ipc.KINDS:
        with open(f"/proc/sysvipc/{kind}") as table:
            header, *rows = (line.split() for line in table)
        left += [(kind, row) for row in rows if int(row[header.index("key")]) == KEY]
    return left


LEVELS = {"jail": {"jail": "auto"}, "contained": {"jail": "off"}}


@pytest.mark.timeout(120)
@pytest.mark.parametrize("level", LEVELS)
def test_system_v_ipc_and_message_queues_are_refused_and_nothing_is_left(student, level):
    found = expected_isolation(**LEVELS[level])
    if found.level != level:
        pytest.skip(f"no {level} level here: {found.reason}")
    seen = _grade_twice(student, **LEVELS[level])
    assert seen["levels"] == {level}
    assert seen["counters"] == [1] * sum(RUNS), "a probe saw another probe's (or sandbox's) counter"
    assert seen["errnos"] == {"EPERM"}, "shmget was not refused by the filter"
    assert seen["other"] == [{"msgget": "EPERM", "semget": "EPERM", "mq_open": "EPERM"}] * len(RUNS)
    assert seen["left inside"] == {"shm": [], "sem": [], "msg": []}
    assert _left_of(seen["uids"]) == []  # without a uid of their own (not root): the objects of the test's key


@needs_root
@pytest.mark.timeout(120)
@pytest.mark.parametrize("jail", ["auto", "off"])
def test_without_the_filter_the_clean_up_removes_each_probes_objects(student, jail):
    """The belt: no seccomp filter, so the calls succeed; the zygote removes the uid's objects after each probe (in
    the jail too, where it holds no CAP_SYS_ADMIN: a child switched to the probes' uid removes them)."""
    if jail == "auto" and expected_isolation().level != "jail":
        pytest.skip(f"no jail here: {expected_isolation().reason}")
    seen = _grade_twice(student, jail=jail, kernel_layers=False)
    assert seen["errnos"] == {None}, "without the filter shmget should succeed"
    assert seen["counters"] == [1] * sum(RUNS), "the clean-up left a probe's segment to the next probe"
    assert all(other["msgget"] == other["semget"] == "ok" for other in seen["other"]), seen["other"]
    assert seen["left inside"] == {"shm": [], "sem": [], "msg": []}
    assert _left_of(seen["uids"]) == []
