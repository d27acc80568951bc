# WRONG: attention_mask (and so labels) is computed as input_ids != pad_id, which zeroes real tokens equal to pad_id.
# breaks: collate.attention_mask_marks_real_tokens, collate.labels_are_ids_with_minus_100_at_padding

### BEGIN SOLUTION pad_collate
    longest = max(len(seq) for seq in batch)
    input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
    for row, seq in enumerate(batch):
        input_ids[row, : len(seq)] = seq
    attention_mask = (input_ids != pad_id).long()
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
