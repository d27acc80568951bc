"""bucketing.py is the reference padded to 3 MB, past the 1 MB cap of a contract file (random text: it does not compress)."""

import base64
import random


def build(repo, ctx):
    padding = base64.b64encode(random.Random(17).randbytes(2_250_000))
    padded = ctx.reference()["exercises/bucketing.py"] + b"\n# " + padding + b"\n"
    ctx.push(repo.commit(ctx.reference(bucketing=padded), date=ctx.at(-2)), -2)
