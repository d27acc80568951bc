"""Hostile: deeply nested and huge return values, and an error message of 50 MB."""
import torch


class HugeError(Exception):
    def __str__(self):
        return "E" * (50 << 20)


def _deep(n):
    out = []
    for _ in range(n):
        out = [out]
    return out


def pad_collate(batch, pad_id=0):
    if len(batch) % 3 == 0:
        raise HugeError()
    if len(batch) % 3 == 1:
        return {"input_ids": _deep(100_000), "attention_mask": _deep(100_000), "labels": _deep(100_000)}
    big = torch.zeros((4096, 8192), dtype=torch.long)
    return {"input_ids": big, "attention_mask": big, "labels": big}
