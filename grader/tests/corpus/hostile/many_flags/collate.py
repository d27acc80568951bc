"""Hostile: answers with a forged result frame holding 100,000 distinct integrity flags (row 7)."""
import json
import os


def _forged():
    flags = [{"type": "Flag", "body": {"kind": "replaced", "name": f"fake.name{i}", "probe": f"grader.probes.collate:p{i}"}}
             for i in range(100_000)]
    body = {"status": "ok", "data": {"score": 100}, "flags": flags}
    return json.dumps({"type": "ProbeResult", "body": body}).encode()


def pad_collate(batch, pad_id=0):
    frame = _forged()
    try:
        os.write(3, len(frame).to_bytes(8, "big") + frame)
    except OSError:
        pass
    os._exit(0)
