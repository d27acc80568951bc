# WRONG: marks at least one position per row as real (to avoid fully masked attention rows); pad_collate([tensor([]), tensor([1, 2])]) gives attention_mask[0] [1, 0] and labels[0] [0, -100] instead of [0, 0] and [-100, -100].
# breaks: collate.attention_mask_marks_real_tokens

### BEGIN SOLUTION pad_collate
    lengths = [int(seq.shape[0]) for seq in batch]
    B, T = len(batch), max(lengths)
    input_ids = torch.full((B, T), pad_id, dtype=torch.long)
    attention_mask = torch.zeros((B, T), dtype=torch.long)
    for i, seq in enumerate(batch):
        n = lengths[i]
        input_ids[i, :n] = seq.to(torch.long)
        attention_mask[i, :max(n, 1)] = 1
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
