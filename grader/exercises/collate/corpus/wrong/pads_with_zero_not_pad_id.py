# WRONG: ignores pad_id and always pads input_ids with 0.
# breaks: collate.input_ids_are_right_padded

### BEGIN SOLUTION pad_collate
    lengths = torch.tensor([len(seq) for seq in batch], dtype=torch.long)
    longest = int(lengths.max())
    input_ids = torch.zeros((len(batch), longest), dtype=torch.long)
    for row, seq in enumerate(batch):
        input_ids[row, : len(seq)] = seq
    attention_mask = (torch.arange(longest)[None, :] < lengths[:, None]).long()
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
