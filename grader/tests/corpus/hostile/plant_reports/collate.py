"""Hostile: a correct pad_collate; the suite plants a symlink at the --json path and a FIFO at the --markdown path (row 8)."""
import torch


def pad_collate(batch, pad_id=0):
    n = [len(seq) for seq in batch]
    width = max(n)
    input_ids = torch.full((len(batch), width), pad_id, dtype=torch.long)
    mask = torch.zeros((len(batch), width), dtype=torch.long)
    for row, seq in enumerate(batch):
        input_ids[row, : n[row]] = seq.to(torch.long)
        mask[row, : n[row]] = 1
    labels = input_ids.masked_fill(mask == 0, -100)
    return {"input_ids": input_ids, "attention_mask": mask, "labels": labels}
