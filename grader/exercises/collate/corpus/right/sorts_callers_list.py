# RIGHT: sorts the caller's list in place, longest first, to find T (the docstring allows reordering the list), and builds the rows from a copy taken before, in the order as passed.

### BEGIN SOLUTION pad_collate
    as_passed = list(batch)
    batch.sort(key=len, reverse=True)  # the list is ours to reorder; its tensors are not touched
    longest = len(batch[0])
    input_ids = torch.full((len(as_passed), longest), pad_id, dtype=torch.long)
    attention_mask = torch.zeros((len(as_passed), longest), dtype=torch.long)
    for row, seq in enumerate(as_passed):
        input_ids[row, : len(seq)] = seq
        attention_mask[row, : len(seq)] = 1
    labels = torch.where(attention_mask.bool(), input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
