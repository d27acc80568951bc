# RIGHT: computes the mask first and scatters torch.cat(batch) into the real positions with boolean indexing.

### BEGIN SOLUTION pad_collate
    lengths = torch.tensor([seq.numel() for seq in batch], dtype=torch.long)
    longest = int(lengths.max().item())
    mask = torch.arange(longest).expand(len(batch), longest) < lengths.unsqueeze(1)
    tokens = torch.cat([seq.reshape(-1).to(torch.long) for seq in batch])
    input_ids = torch.full(mask.shape, pad_id, dtype=torch.long)
    input_ids[mask] = tokens  # row-major order: row i gets batch[i], left-aligned
    labels = torch.full(mask.shape, IGNORE_INDEX, dtype=torch.long)
    labels[mask] = tokens
    return {"input_ids": input_ids, "attention_mask": mask.to(torch.long), "labels": labels}
### END SOLUTION
