"""Four contract files committed as symbolic links: /proc/self/mem, /proc/kmsg, /etc/shadow, a classmate's file.

Row 2 of the intake issue: read through a checkout, the first kills the
batch (EIO), the second blocks forever as root, the third leaks a secret
file, the fourth grades a classmate's work.
"""

from grader.tests.gitrepos import Link


def build(repo, ctx):
    files = ctx.reference()
    files["exercises/collate.py"] = Link("/proc/self/mem")
    files["exercises/sharding.py"] = Link("/proc/kmsg")
    files["exercises/seeding.py"] = Link("/etc/shadow")
    files["exercises/bucketing.py"] = Link(f"../../{ctx.classmate}/exercises/bucketing.py")
    ctx.push(repo.commit(files, date=ctx.at(-4)), -4)
