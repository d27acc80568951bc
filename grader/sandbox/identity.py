"""Which user a probe child runs as: a uid of its own, when the grader may give one.

As root (in the jail, or outside it with CAP_SETUID, CAP_SETGID and
CAP_CHOWN), each sandbox picks a uid that no account has and no process runs
as, so a probe can neither signal nor read anything of the grader's or of
another grading's, nor connect to a root-owned socket; its group is nogroup.
Where the interpreter lives under a folder others cannot search, that uid
alone is given search of it by an ACL entry (:func:`grant_search`), removed
when the sandbox closes.
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


def closed_to_others(paths: list[str]) -> list[str]:
    """Every folder on the way to ``paths`` that other users cannot search, each once, shallowest first.

    A uid of its own is no use to a probe that cannot reach the interpreter (a pyenv in root's 0700 home, say):
    :func:`grant_search` opens these folders to that uid alone.
    """
    found: list[str] = []
    for path in paths:
        for folder in [*reversed(Path(path).parents), Path(path)]:
            try:
                closed = not os.stat(folder).st_mode & 0o001
            except OSError:
                closed = True
            if closed and folder.is_dir() and str(folder) not in found:
                found.append(str(folder))
    return found


# POSIX ACLs as the kernel stores them (xattr system.posix_acl_access): a version, then (tag, perm, id) entries
# sorted by tag and id. Written directly: no setfacl needed.
_ACL_XATTR = "system.posix_acl_access"
_ACL_VERSION = 2
_USER_OBJ, _USER, _GROUP_OBJ, _GROUP, _MASK, _OTHER = 0x01, 0x02, 0x04, 0x08, 0x10, 0x20
_UNDEFINED_ID = 0xFFFFFFFF
_SEARCH = 0o1


def _acl_entries(folder: str) -> list[tuple[int, int, int]] | None:
    """The folder's ACL entries, or None when it has none beyond its mode."""
    import struct

    try:
        raw = os.getxattr(folder, _ACL_XATTR)
    except OSError:
        return None
    version, entries = struct.unpack_from("<I", raw)[0], []
    if version != _ACL_VERSION:
        raise OSError(f"unknown ACL version {version} on {folder}")
    for offset in range(4, len(raw), 8):
        entries.append(struct.unpack_from("<HHI", raw, offset))
    return entries


def _write_acl(folder: str, entries: list[tuple[int, int, int]]) -> None:
    import struct

    data = struct.pack("<I", _ACL_VERSION) + b"".join(struct.pack("<HHI", *e) for e in sorted(entries, key=lambda e: (e[0], e[2])))
    os.setxattr(folder, _ACL_XATTR, data)


def grant_search(folders: list[str], uid: int) -> str:
    """Let ``uid`` alone search ``folders`` (an ACL entry ``user:uid:--x`` on each; no one else gains anything):
    '' when done, else why not (then nothing is changed). Undo with :func:`revoke_search`.

    For a probe uid of its own where the interpreter lives under a folder others cannot search (``/root`` is 0700:
    a pyenv there). A folder that has an ACL of its own beyond such entries is left alone.
    """
    import fcntl

    done: list[str] = []
    for folder in folders:
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        except OSError as exc:
            revoke_search(done, uid)
            return f"{folder} cannot be opened ({exc.strerror})"
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)  # gradings running side by side add and remove their own entries
            mode = os.fstat(fd).st_mode & 0o777
            entries = _acl_entries(folder)
            if entries is None:
                entries = [(_USER_OBJ, mode >> 6 & 7, _UNDEFINED_ID), (_GROUP_OBJ, mode >> 3 & 7, _UNDEFINED_ID),
                           (_OTHER, mode & 7, _UNDEFINED_ID)]
            if any(tag in (_USER, _GROUP) and not (tag == _USER and ident in PRIVATE_UIDS) for tag, _, ident in entries):
                revoke_search(done, uid)
                return f"{folder} has an ACL of its own: not changed"
            group = next(perm for tag, perm, _ in entries if tag == _GROUP_OBJ)
            entries = [e for e in entries if e[0] != _MASK] + [(_USER, _SEARCH, uid), (_MASK, group | _SEARCH, _UNDEFINED_ID)]
            _write_acl(folder, entries)
            done.append(folder)
        except OSError as exc:
            revoke_search(done, uid)
            return f"cannot give the probes' uid an ACL entry on {folder} ({exc.strerror or exc})"
        finally:
            os.close(fd)
    return ""


def revoke_search(folders: list[str], uid: int) -> None:
    """Remove ``uid``'s entries that :func:`grant_search` made; the last one gone, the folder's mode is as before."""
    import fcntl

    for folder in folders:
        try:
            fd = os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
        except OSError:
            continue
        try:
            fcntl.flock(fd, fcntl.LOCK_EX)
            entries = _acl_entries(folder)
            if entries is None:
                continue
            entries = [e for e in entries if not (e[0] == _USER and e[2] == uid)]
            group = next(perm for tag, perm, _ in entries if tag == _GROUP_OBJ)
            if any(tag == _USER for tag, _, _ in entries):
                _write_acl(folder, [e for e in entries if e[0] != _MASK] + [
                    (_MASK, group | _SEARCH, _UNDEFINED_ID)])
            else:
                os.removexattr(folder, _ACL_XATTR)
                mode = os.fstat(fd).st_mode & 0o7777
                os.fchmod(fd, (mode & ~0o070) | group << 3)  # the group bits showed the mask: back to the group's own
        except OSError:
            continue
        finally:
            os.close(fd)
