# WRONG: returns a batch of one sequence as a view of it (batch[0].long()[None], and .long() of an int64 tensor is the tensor itself), so input_ids shares the caller's memory.
# breaks: collate.inputs_are_not_modified
# witness of: test_collate.py::test_inputs_are_not_modified_and_not_shared

### BEGIN SOLUTION pad_collate
    lengths = torch.tensor([len(seq) for seq in batch], dtype=torch.long)
    longest = int(lengths.max())
    if len(batch) == 1:  # nothing to pad; but .long() of an int64 tensor is the tensor itself, so this is a view of it
        input_ids = batch[0].long()[None]
    else:
        input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
        for row, seq in enumerate(batch):
            input_ids[row, : len(seq)] = seq  # copies and widens to int64
    attention_mask = (torch.arange(longest)[None, :] < lengths[:, None]).long()
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
