# WRONG: pads on the left (sequences end at column T), but the contract asks for right padding.
# breaks: collate.attention_mask_marks_real_tokens, collate.input_ids_are_right_padded, collate.labels_are_ids_with_minus_100_at_padding
# witness of: test_collate.py::test_right_pads_masks_and_labels_a_small_batch

### BEGIN SOLUTION pad_collate
    lengths = [len(seq) for seq in batch]
    longest = max(lengths)
    input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
    attention_mask = torch.zeros((len(batch), longest), dtype=torch.long)
    for row, seq in enumerate(batch):
        if len(seq):
            input_ids[row, longest - len(seq):] = seq
            attention_mask[row, longest - len(seq):] = 1
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
