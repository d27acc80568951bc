"""Hostile: at import, writes its own 'error' result frame with a 15 MB message to the result pipe (fd 3) and exits.

The child's own 4,000-character cut never runs, so only the receiving end (the
zygote and the grading process) can keep this text out of the reports.
"""
import json
import os

_body = json.dumps({"type": "ProbeResult", "body": {
    "status": "error", "error_type": "E" * 100_000, "error": "ImportError: " + "x" * (15 << 20),
    "traceback": "Traceback\n" + "  frame\n" * 50_000, "flags": []}}).encode()
try:
    os.write(3, len(_body).to_bytes(8, "big") + _body)
except OSError:
    pass
os._exit(0)


def pad_collate(batch, pad_id=0):
    raise AssertionError("never reached")
