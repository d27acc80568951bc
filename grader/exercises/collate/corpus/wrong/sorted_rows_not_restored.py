# WRONG: sorts the batch list by length (longest first) and builds the rows in sorted order; pad_collate([tensor([1]), tensor([2, 3])]) gives input_ids [[2, 3], [1, 0]] instead of [[1, 0], [2, 3]].
# breaks: collate.attention_mask_marks_real_tokens, collate.input_ids_are_right_padded, collate.labels_are_ids_with_minus_100_at_padding

### BEGIN SOLUTION pad_collate
    batch.sort(key=len, reverse=True)  # longest first, like pack_padded_sequence wants
    lengths = [int(seq.shape[0]) for seq in batch]
    B, T = len(batch), max(lengths)
    input_ids = torch.full((B, T), pad_id, dtype=torch.long)
    attention_mask = torch.zeros((B, T), dtype=torch.long)
    for i, seq in enumerate(batch):
        n = lengths[i]
        input_ids[i, :n] = seq.to(torch.long)
        attention_mask[i, :n] = 1
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
