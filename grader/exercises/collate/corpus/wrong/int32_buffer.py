# WRONG: fills an int32 buffer ("token ids fit in int32") and widens at the end; an int64 id 2**31 comes back as -2147483648.
# breaks: collate.input_ids_are_right_padded, collate.labels_are_ids_with_minus_100_at_padding, collate.pad_id_outside_the_input_dtype

### BEGIN SOLUTION pad_collate
    lengths = [int(seq.shape[0]) for seq in batch]
    B, T = len(batch), max(lengths)
    input_ids = torch.full((B, T), pad_id, dtype=torch.int32)
    attention_mask = torch.zeros((B, T), dtype=torch.long)
    for i, seq in enumerate(batch):
        n = lengths[i]
        input_ids[i, :n] = seq.to(torch.long)
        attention_mask[i, :n] = 1
    input_ids = input_ids.long()
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
