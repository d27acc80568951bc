# WRONG: when every sequence has one length, returns torch.stack(batch) as it is, so a same-length int32 or uint8 batch does not come back int64.
# breaks: collate.int64_also_when_no_row_needs_padding
# witness of: test_collate.py::test_same_length_batches_come_out_int64_too

### BEGIN SOLUTION pad_collate
    if len({len(seq) for seq in batch}) == 1:  # nothing to pad: stack and go
        input_ids = torch.stack(batch)
        return {"input_ids": input_ids, "attention_mask": torch.ones_like(input_ids), "labels": input_ids.clone()}
    lengths = torch.tensor([len(seq) for seq in batch], dtype=torch.long)
    longest = int(lengths.max())
    input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
    for row, seq in enumerate(batch):
        input_ids[row, : len(seq)] = seq  # copies and widens to int64
    attention_mask = (torch.arange(longest)[None, :] < lengths[:, None]).long()
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
