# WRONG: builds the tables in the input's dtype (batch[0].dtype), so int32/int16/uint8 batches do not come back as int64.
# breaks: collate.any_integer_dtype_gives_the_same_tables, collate.int64_also_when_no_row_needs_padding, collate.pad_id_outside_the_input_dtype, collate.tables_are_int64_b_by_t
# witness of: test_collate.py::test_any_integer_dtype_comes_out_int64

### BEGIN SOLUTION pad_collate
    lengths = torch.tensor([len(seq) for seq in batch], dtype=torch.long)
    longest = int(lengths.max())
    dtype = batch[0].dtype
    input_ids = torch.full((len(batch), longest), pad_id, dtype=dtype)
    for row, seq in enumerate(batch):
        input_ids[row, : len(seq)] = seq
    attention_mask = (torch.arange(longest)[None, :] < lengths[:, None]).to(dtype)
    labels = input_ids.to(torch.long).masked_fill(attention_mask == 0, IGNORE_INDEX).to(dtype)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
