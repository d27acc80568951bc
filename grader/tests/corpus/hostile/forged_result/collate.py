"""Hostile: writes a forged 'ok' frame to the result pipe (fd 3) and exits, skipping the probe."""
import json
import os


def pad_collate(batch, pad_id=0):
    body = json.dumps({"status": "ok", "data": {"score": 100}, "flags": []}).encode()
    try:
        os.write(3, len(body).to_bytes(8, "big") + body)
    except OSError:
        pass
    os._exit(0)
