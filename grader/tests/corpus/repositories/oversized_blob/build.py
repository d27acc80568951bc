"""bucketing.py is the reference padded past the 1 MB cap of a contract file (a comment of a million x)."""


def build(repo, ctx):
    padded = ctx.reference()["exercises/bucketing.py"] + b"\n# " + b"x" * 1_000_000 + b"\n"
    ctx.push(repo.commit(ctx.reference(bucketing=padded), date=ctx.at(-2)), -2)
