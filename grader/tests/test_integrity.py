"""The replaced-function detector (grader/inside/integrity.py) tells torch's own lazy wrapper from a student's, and its
flags reach every check that reads a flagged probe's data.

torch's first ``import torch._dynamo`` in a process replaces ``torch.manual_seed`` by
``torch._disable_dynamo(torch.manual_seed)``. Before the detector knew that wrapper, a right answer whose code made
torch import it (an optimizer's ``state_dict``, say) failed every check of its exercise as "replaced functions the
grader relies on". The detector is armed in a process of its own here: arming installs an audit hook for good.
"""

from __future__ import annotations

import json
import subprocess
import sys

from grader.engine.checking import Context, shared_probe
from grader.paths import REPO
from grader.shared.messages import Flag, ProbeResult

SCRIPT = """
import functools, json
import torch
from grader.inside import integrity

detector = integrity.arm()
original = torch.manual_seed
seen = {}
import torch._dynamo  # torch wraps torch.manual_seed here
seen["torch's own wrapper"] = detector.replaced()
torch.manual_seed(0)  # torch caches its disable wrapper on the original
seen["torch's own wrapper, called"] = detector.replaced()
cached = original.__dict__["__dynamo_disable"]
original.__dynamo_disable = lambda *args, **kwargs: None
seen["torch's wrapper calling the student's function"] = detector.replaced()
original.__dynamo_disable = torch._dynamo.disable(len, wrapping=False)
seen["torch's wrapper calling torch's disable around another function"] = detector.replaced()
original.__dynamo_disable = cached
torch.manual_seed = functools.wraps(original)(lambda *args, **kwargs: None)
seen["a look-alike with __wrapped__"] = detector.replaced()
torch.manual_seed = torch._disable_dynamo(lambda *args, **kwargs: None)
seen["torch's wrapper around another function"] = detector.replaced()
torch.manual_seed = torch._disable_dynamo(original)
torch.manual_seed.__closure__[torch.manual_seed.__code__.co_freevars.index("fn")].cell_contents = len
seen["torch's wrapper whose function was swapped"] = detector.replaced()
print(json.dumps(seen))
"""


def test_torchs_lazy_wrapper_is_not_a_replacement_and_look_alikes_are(tmp_path):
    done = subprocess.run([sys.executable, "-c", SCRIPT], cwd=REPO, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-3000:]
    seen = json.loads(done.stdout.strip().splitlines()[-1])
    assert seen.pop("torch's own wrapper") == []
    assert seen.pop("torch's own wrapper, called") == []
    for case, names in seen.items():
        assert names == ["torch.manual_seed"], (case, names)


class FlaggingSandbox:
    """Answers every probe at once, with the flag of a submission that replaced torch.manual_seed."""

    def run(self, probe, args, timeout):
        return ProbeResult("ok", data=dict(args), flags=[Flag("replaced", "torch.manual_seed", probe)])


def test_a_shared_probes_flags_reach_every_check_that_reads_it():
    """A check that already holds a flag from one run of a probe, then makes a shared run of it: a later check that
    reads the shared run's data gets the flag too (it once did not, and passed on data from tampered code)."""
    ctx = Context(sandbox=FlaggingSandbox(), seed=1)
    ctx.begin_check("first")
    ctx.probe("bucketing:epochs", count=1)
    shared_probe(ctx, "bucketing:epochs", count=3)
    ctx.begin_check("second")
    assert shared_probe(ctx, "bucketing:epochs", count=3) == {"count": 3}
    assert list(ctx.flags_by_check["second"]) == [Flag("replaced", "torch.manual_seed", "grader.exercises.bucketing.probe:epochs")]
