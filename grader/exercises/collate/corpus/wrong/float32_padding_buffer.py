# WRONG: pads into a float32 buffer (torch.full with a float pad) and converts to int64 at the end, so token ids beyond 2**24 come back rounded.
# breaks: collate.input_ids_are_right_padded, collate.labels_are_ids_with_minus_100_at_padding
# witness of: test_collate.py::test_ids_beyond_float_precision_come_back_exact

### BEGIN SOLUTION pad_collate
    lengths = torch.tensor([len(seq) for seq in batch], dtype=torch.long)
    longest = int(lengths.max())
    input_ids = torch.full((len(batch), longest), float(pad_id), dtype=torch.float32)
    for row, seq in enumerate(batch):
        input_ids[row, : len(seq)] = seq
    input_ids = input_ids.long()
    attention_mask = (torch.arange(longest)[None, :] < lengths[:, None]).long()
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
