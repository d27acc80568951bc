# WRONG: returns a tuple (input_ids, attention_mask, labels) instead of the documented dict.
# breaks: collate.exact_keys, collate.int64_b_by_t, collate.right_padding, collate.attention_mask, collate.labels, collate.ragged_and_empty, collate.any_integer_dtype, collate.narrow_dtype_same_length, collate.pad_id_outside_dtype
# witness of: test_collate.py::test_works_as_collate_fn_in_process

### BEGIN SOLUTION pad_collate
    lengths = torch.tensor([len(seq) for seq in batch], dtype=torch.long)
    longest = int(lengths.max())
    input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
    for row, seq in enumerate(batch):
        input_ids[row, : len(seq)] = seq
    attention_mask = (torch.arange(longest)[None, :] < lengths[:, None]).long()
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return input_ids, attention_mask, labels
### END SOLUTION
