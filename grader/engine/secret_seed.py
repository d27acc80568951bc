"""Passing a seed of record to a grading process without a command line or an environment (grader/docs/DESIGN.md, principle 8).

Any process on the machine can read another's ``/proc/<pid>/cmdline``, and at
level ``contained`` (no PID namespace: Gradescope's container) a probe is such
a process. So the seed of record travels through a pipe: the caller writes it
into a pipe and hands the grading process the read end (``subprocess``'s
``pass_fds``) with ``--secret-seed-fd FD``; ``grade`` reads it and closes the
descriptor before any sandbox exists. What ``/proc`` then shows of the grader
is ``pipe:[inode]``, never the number.
"""

from __future__ import annotations

import os

#: The most bytes a seed takes in decimal (below 2**63), with room for a newline.
MAX_SEED_BYTES = 24


def seed_pipe(seed: int) -> int:
    """The read end of a pipe holding ``seed`` in decimal, then end of file; the caller closes it after the child starts."""
    read, write = os.pipe()
    try:
        os.write(write, str(int(seed)).encode("ascii"))
    finally:
        os.close(write)
    return read


def read_seed(fd: int) -> int:
    """The seed written into file descriptor ``fd`` (then closed; stdin, stdout or stderr then point at /dev/null,
    so that no later file takes their number); ValueError saying what was wrong."""
    try:
        chunks, size = [], 0
        while size <= MAX_SEED_BYTES:
            chunk = os.read(fd, MAX_SEED_BYTES + 1 - size)
            if not chunk:
                break
            chunks.append(chunk)
            size += len(chunk)
    except OSError as exc:
        raise ValueError(f"--secret-seed-fd {fd}: cannot read the seed of record ({exc.strerror}); give the read end "
                         "of a pipe or file holding the seed in decimal") from None
    finally:
        _release(fd)
    text = b"".join(chunks).strip()
    if size > MAX_SEED_BYTES or not text.isdigit() or not 0 <= int(text) < 2**63:
        raise ValueError(f"--secret-seed-fd {fd}: expected a whole number from 0 to 2**63 - 1, got {text[:30]!r}")
    return int(text)


def _release(fd: int) -> None:
    try:
        if fd <= 2:
            null = os.open(os.devnull, os.O_RDWR)
            os.dup2(null, fd)
            os.close(null)
        else:
            os.close(fd)
    except OSError:
        pass
