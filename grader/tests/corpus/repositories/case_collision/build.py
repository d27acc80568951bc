"""Collate.py beside collate.py: on a case-insensitive checkout (macOS, Windows) one of them wins at random."""


def build(repo, ctx):
    files = ctx.reference()
    files["exercises/Collate.py"] = b"raise SystemExit('graded exercises/Collate.py instead of exercises/collate.py')\n"
    ctx.push(repo.commit(files, date=ctx.at(-6)), -6)
