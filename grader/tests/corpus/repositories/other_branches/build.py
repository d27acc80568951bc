"""Pushes to other branches, and a late push to main with a forged date: only main's push before the deadline counts.

Row 3 of the intake issue: the activity query had no ref filter, so the
newest push to any branch before the deadline (here "wip", holding the
reference) was graded. The activity answer here holds every branch's
pushes, as a server ignoring the ref filter would: the record must check
each entry's ref itself.
"""


def build(repo, ctx):
    start = repo.commit(ctx.stubs(collate=ctx.reference()["exercises/collate.py"],
                                  sharding=ctx.reference()["exercises/sharding.py"]), date=ctx.at(-30))
    ctx.push(start, -30)
    wip = repo.commit(ctx.reference(), branch="wip", message="finished on another branch", date=ctx.at(-1))
    ctx.push(wip, -1, branch="wip")
    late = repo.commit(ctx.reference(), message="finished (dated before the deadline)", date=ctx.at(-2))
    ctx.push(late, 3)
    ctx.push(repo.commit(ctx.reference(), branch="late", date=ctx.at(2)), 2, branch="late")
    ctx.graded = start
