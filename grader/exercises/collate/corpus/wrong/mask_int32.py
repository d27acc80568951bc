# WRONG: allocates attention_mask as int32; pad_collate([tensor([1]), tensor([2, 3])])['attention_mask'].dtype is torch.int32 instead of torch.int64.
# breaks: collate.tables_are_int64_b_by_t

### BEGIN SOLUTION pad_collate
    lengths = [int(seq.shape[0]) for seq in batch]
    B, T = len(batch), max(lengths)
    input_ids = torch.full((B, T), pad_id, dtype=torch.long)
    attention_mask = torch.zeros((B, T), dtype=torch.int32)
    for i, seq in enumerate(batch):
        n = lengths[i]
        input_ids[i, :n] = seq.to(torch.long)
        attention_mask[i, :n] = 1
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
