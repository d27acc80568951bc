"""100,000 files in exercises/ beside the five contract files (made without a work tree)."""


def build(repo, ctx):
    files = ctx.reference()
    for i in range(100_000):
        files[f"exercises/filler_{i:06d}.py"] = b"# filler %d\n" % (i % 10)
    ctx.push(repo.commit(files, date=ctx.at(-9)), -9)
