# RIGHT: builds nested Python lists row by row (slowly) and makes the tensors with torch.tensor at the end.

### BEGIN SOLUTION pad_collate
    longest = max(len(seq) for seq in batch)
    ids, mask, labels = [], [], []
    for seq in batch:
        tokens = [int(t) for t in seq.tolist()]
        pad = longest - len(tokens)
        ids.append(tokens + [pad_id] * pad)
        mask.append([1] * len(tokens) + [0] * pad)
        labels.append(tokens + [IGNORE_INDEX] * pad)
    shape = (len(batch), longest)
    return {
        "input_ids": torch.tensor(ids, dtype=torch.long).reshape(shape),
        "attention_mask": torch.tensor(mask, dtype=torch.long).reshape(shape),
        "labels": torch.tensor(labels, dtype=torch.long).reshape(shape),
    }
### END SOLUTION
