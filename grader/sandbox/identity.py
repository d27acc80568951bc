"""Which user a probe child runs as: a uid of its own, when the grader may give one.

As root (in the jail, or outside it with CAP_SETUID, CAP_SETGID and
CAP_CHOWN and an interpreter any user can reach), each sandbox picks a uid
that no account has and no process runs as, so a probe can neither signal
nor read anything of the grader's or of another grading's; its group is
nogroup.
"""

from __future__ import annotations

import os
import pwd
import secrets
from pathlib import Path

NOGROUP = 65534
PRIVATE_UIDS = range(1_000_000, 2_000_000)  # far above any account a distribution creates
_SWITCH_CAPABILITIES = (6, 7, 0)  # CAP_SETGID, CAP_SETUID, CAP_CHOWN


def uids_in_use() -> set[int]:
    """Real uids of the running processes."""
    uids = set()
    for entry in os.listdir("/proc"):
        if entry.isdigit():
            try:
                with open(f"/proc/{entry}/status", "rb") as status:
                    for line in status:
                        if line.startswith(b"Uid:"):
                            uids.add(int(line.split()[1]))
                            break
            except OSError:
                continue
    return uids


def unused_uid() -> int:
    """A uid no account has and no process runs as: the sandbox's own."""
    busy = uids_in_use()
    while True:
        uid = PRIVATE_UIDS[secrets.randbelow(len(PRIVATE_UIDS))]
        try:
            pwd.getpwuid(uid)
        except KeyError:
            if uid not in busy:
                return uid


def can_switch_uid() -> bool:
    """Whether this process may give its children another uid (root with CAP_SETUID, CAP_SETGID, CAP_CHOWN)."""
    if os.geteuid() != 0:
        return False
    with open("/proc/self/status") as status:
        effective = next((int(line.split()[1], 16) for line in status if line.startswith("CapEff:")), 0)
    return all(effective >> bit & 1 for bit in _SWITCH_CAPABILITIES)


def unreachable_by_others(paths: list[str]) -> str:
    """The first folder on the way to one of ``paths`` that other users cannot search ('' if there is none).

    A uid of its own is no use to a probe that cannot reach the interpreter
    (a pyenv in root's 0700 home, say).
    """
    for path in paths:
        for folder in [*reversed(Path(path).parents), Path(path)]:
            try:
                if not os.stat(folder).st_mode & 0o001:
                    return str(folder)
            except OSError:
                return str(folder)
    return ""
