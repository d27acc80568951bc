# WRONG: attention_mask is a torch.bool tensor instead of int64.
# breaks: collate.tables_are_int64_b_by_t
# witness of: test_collate.py::test_returns_the_three_keys_as_int64_b_by_t

### BEGIN SOLUTION pad_collate
    lengths = torch.tensor([len(seq) for seq in batch], dtype=torch.long)
    longest = int(lengths.max())
    input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
    for row, seq in enumerate(batch):
        input_ids[row, : len(seq)] = seq
    attention_mask = torch.arange(longest)[None, :] < lengths[:, None]
    labels = input_ids.masked_fill(~attention_mask, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
