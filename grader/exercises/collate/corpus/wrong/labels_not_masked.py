# WRONG: labels are a plain copy of input_ids: padding positions keep pad_id instead of -100.
# breaks: collate.labels_are_ids_with_minus_100_at_padding
# witness of: test_collate.py::test_pin_memory_loader_gives_the_documented_batches; test_fences.py::test_fence1_default_collate_rules_and_pad_collate

### BEGIN SOLUTION pad_collate
    lengths = torch.tensor([len(seq) for seq in batch], dtype=torch.long)
    longest = int(lengths.max())
    input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
    for row, seq in enumerate(batch):
        input_ids[row, : len(seq)] = seq
    attention_mask = (torch.arange(longest)[None, :] < lengths[:, None]).long()
    labels = input_ids.clone()
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
