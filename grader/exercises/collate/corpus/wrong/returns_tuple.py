# WRONG: returns a tuple (input_ids, attention_mask, labels) instead of the documented dict.
# breaks: collate.any_integer_dtype_gives_the_same_tables, collate.attention_mask_marks_real_tokens, collate.empty_sequences_keep_their_row, collate.input_ids_are_right_padded, collate.int64_also_when_no_row_needs_padding, collate.labels_are_ids_with_minus_100_at_padding, collate.pad_id_outside_the_input_dtype, collate.returns_exactly_the_three_keys, collate.tables_are_int64_b_by_t
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
