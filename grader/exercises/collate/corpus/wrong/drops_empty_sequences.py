# WRONG: filters empty sequences out of the batch, so B shrinks and an all-empty batch crashes.
# breaks: collate.empty_sequences_keep_their_row
# witness of: test_collate.py::test_empty_sequences

### BEGIN SOLUTION pad_collate
    batch = [seq for seq in batch if len(seq) > 0]
    lengths = torch.tensor([len(seq) for seq in batch], dtype=torch.long)
    longest = int(lengths.max())
    input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
    for row, seq in enumerate(batch):
        input_ids[row, : len(seq)] = seq
    attention_mask = (torch.arange(longest)[None, :] < lengths[:, None]).long()
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
