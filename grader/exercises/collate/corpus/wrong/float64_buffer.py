# WRONG: fills a float64 buffer and converts to int64 at the end; an int64 id 2**53 + 1 comes back as 2**53 (9007199254740992 instead of 9007199254740993).
# breaks: collate.input_ids_are_right_padded, collate.labels_are_ids_with_minus_100_at_padding

### BEGIN SOLUTION pad_collate
    lengths = [int(seq.shape[0]) for seq in batch]
    B, T = len(batch), max(lengths)
    input_ids = torch.full((B, T), pad_id, dtype=torch.float64)
    attention_mask = torch.zeros((B, T), dtype=torch.long)
    for i, seq in enumerate(batch):
        n = lengths[i]
        input_ids[i, :n] = seq.to(torch.long)
        attention_mask[i, :n] = 1
    input_ids = input_ids.long()
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
