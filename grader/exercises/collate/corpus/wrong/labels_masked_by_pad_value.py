# WRONG: labels are -100 wherever input_ids == pad_id, so a real token equal to pad_id loses its label.
# breaks: collate.labels_are_ids_with_minus_100_at_padding
# witness of: test_collate.py::test_a_real_token_equal_to_pad_id_keeps_its_label

### BEGIN SOLUTION pad_collate
    lengths = torch.tensor([len(seq) for seq in batch], dtype=torch.long)
    longest = int(lengths.max())
    input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
    for row, seq in enumerate(batch):
        input_ids[row, : len(seq)] = seq
    attention_mask = (torch.arange(longest)[None, :] < lengths[:, None]).long()
    labels = input_ids.masked_fill(input_ids == pad_id, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
