# WRONG: returns input_ids itself as labels when no row needs padding; after out = pad_collate([tensor([1, 2]), tensor([1, 2])]), out["labels"][0, 0] = -100 also changes out["input_ids"][0, 0].
# breaks: collate.inputs_are_not_modified
# witness of: test_collate.py::test_the_three_tables_share_no_memory

### BEGIN SOLUTION pad_collate
    lengths = torch.tensor([len(seq) for seq in batch], dtype=torch.long)
    longest = int(lengths.max())
    input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
    for row, seq in enumerate(batch):
        input_ids[row, : len(seq)] = seq  # copies and widens to int64
    attention_mask = (torch.arange(longest)[None, :] < lengths[:, None]).long()
    if bool(attention_mask.all()):
        labels = input_ids  # nothing is padded, so nothing to mask: skip the copy
    else:
        labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
