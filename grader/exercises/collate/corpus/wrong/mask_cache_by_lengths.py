# WRONG: Caches the attention mask per tuple of lengths at module level and returns the cached tensor itself, so later calls share it and see any write a caller made.
# breaks: collate.attention_mask_marks_real_tokens, collate.labels_are_ids_with_minus_100_at_padding, collate.any_integer_dtype_gives_the_same_tables
# witness of: test_collate.py::test_writing_into_returned_tables_changes_no_later_batch

_MASK_CACHE = {}  # lengths tuple -> attention mask (batches repeat their lengths a lot)

### BEGIN SOLUTION pad_collate
    lengths = torch.tensor([len(seq) for seq in batch], dtype=torch.long)
    longest = int(lengths.max())
    input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
    for row, seq in enumerate(batch):
        input_ids[row, : len(seq)] = seq
    key = tuple(lengths.tolist())
    attention_mask = _MASK_CACHE.get(key)
    if attention_mask is None:
        attention_mask = (torch.arange(longest)[None, :] < lengths[:, None]).long()
        _MASK_CACHE[key] = attention_mask
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
