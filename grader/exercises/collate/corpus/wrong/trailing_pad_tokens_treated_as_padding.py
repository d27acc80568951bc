# WRONG: measures each row's length as the position after its last token != pad_id; pad_collate([tensor([5, 0]), tensor([7, 8, 9])]) gives attention_mask[0] [1, 0, 0] and labels[0] [5, -100, -100] instead of [1, 1, 0] and [5, 0, -100].
# breaks: collate.attention_mask_marks_real_tokens, collate.labels_are_ids_with_minus_100_at_padding

### BEGIN SOLUTION pad_collate
    lengths = [int(seq.shape[0]) for seq in batch]
    B, T = len(batch), max(lengths)
    input_ids = torch.full((B, T), pad_id, dtype=torch.long)
    attention_mask = torch.zeros((B, T), dtype=torch.long)
    for i, seq in enumerate(batch):
        n = lengths[i]
        input_ids[i, :n] = seq.to(torch.long)
        nz = (seq != pad_id).nonzero()
        attention_mask[i, : (int(nz[-1]) + 1 if len(nz) else 0)] = 1
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
