"""A default branch and a Classroom 50 submission tag whose names are shell code and URL syntax.

The names reach gh api paths and the gradebook: they must be
percent-encoded there, never run, and must not make the record fail.
"""

BRANCH = "main';touch${IFS}pwned-branch;'&y={owner}"
TAG = "submit/$(touch${IFS}pwned-tag)#frag"


def build(repo, ctx):
    ctx.default_branch = BRANCH
    repo.set_head(BRANCH)
    submitted = repo.commit(ctx.reference(), branch=BRANCH, date=ctx.at(-8))
    ctx.push(submitted, -8)
    repo.tag(TAG, submitted)
    ctx.release(TAG, submitted, -7.5)
    ctx.release("-h", submitted, -7)  # not a submission tag: ignored
    later = repo.commit(ctx.stubs(), branch=BRANCH, message="after the submission", date=ctx.at(-1))
    ctx.push(later, -1)
    ctx.graded = submitted
