"""Scratch is the probe's alone and fresh: nothing one probe writes is there for the next (issue 31, item 6).

The third red team kept a counter in ``scratch/forkserver/`` (the shared
forkserver's folder, the probes' uid's) and saw 176 earlier calls. A probe
writes a mark into every shared place it can (the forkserver's folder,
/dev/shm, /tmp); the next probe must find none of them, in the jail and at
level contained. Without a uid of its own (``contained`` on a machine whose
interpreter others cannot reach), a probe's files in the machine's /dev/shm
cannot be told from others' and stay: the test then holds the forkserver's
folder only, and says so.
"""

from __future__ import annotations

import secrets

import pytest

from grader.sandbox import Sandbox
from grader.sandbox.expected import expected_isolation

PROBES = "grader.tests.sandbox_probes"


@pytest.mark.slow
@pytest.mark.timeout(180)
@pytest.mark.parametrize("jail", ["auto", "off"], ids=["jail", "contained"])
def test_nothing_a_probe_writes_is_there_for_the_next(jail, tmp_path):
    expected = expected_isolation(jail=jail)
    if expected.level != ("jail" if jail == "auto" else "contained"):
        pytest.skip(f"no such level here: {expected.reason}")
    (tmp_path / "collate.py").write_text("")
    tag = secrets.token_hex(4)
    with Sandbox(tmp_path, probe_modules=(PROBES,), jail=jail) as box:
        written = box.run(f"{PROBES}:leave_marks", {"tag": tag}, timeout=30)
        found = box.run(f"{PROBES}:find_marks", {"tag": tag}, timeout=30)
        private_uid = "uid" in box.isolation.layers
    assert written.ok and found.ok, (written, found)
    assert written.data["forkserver"], "the forkserver's folder is writable to probes (else this proves nothing)"
    held = [place for place, wrote in written.data.items() if wrote and (private_uid or place == "forkserver")]
    assert held and [place for place in held if found.data[place]] == [], (written.data, found.data)
    if not private_uid:
        print(f"no uid of its own at {box.isolation.level}: /dev/shm is checked only where a probe has one")
