"""The replaced-function detector (grader/inside/integrity.py) tells torch's own lazy wrapper from a student's.

torch's first ``import torch._dynamo`` in a process replaces ``torch.manual_seed`` by
``torch._disable_dynamo(torch.manual_seed)``. Before the detector knew that wrapper, a right answer whose code made
torch import it (an optimizer's ``state_dict``, say) failed every check of its exercise as "replaced functions the
grader relies on". The detector is armed in a process of its own here: arming installs an audit hook for good.
"""

from __future__ import annotations

import json
import subprocess
import sys

from grader.paths import REPO

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
