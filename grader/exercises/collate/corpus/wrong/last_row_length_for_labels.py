# WRONG: masks labels after the loop with the leaked loop variable n (the last row's length); pad_collate([tensor([1]), tensor([2, 3])])['labels'] is [[1, 0], [2, 3]] instead of [[1, -100], [2, 3]].
# breaks: collate.labels_are_ids_with_minus_100_at_padding

### BEGIN SOLUTION pad_collate
    lengths = [int(seq.shape[0]) for seq in batch]
    B, T = len(batch), max(lengths)
    input_ids = torch.full((B, T), pad_id, dtype=torch.long)
    attention_mask = torch.zeros((B, T), dtype=torch.long)
    for i, seq in enumerate(batch):
        n = lengths[i]
        input_ids[i, :n] = seq.to(torch.long)
        attention_mask[i, :n] = 1
    labels = input_ids.clone()
    labels[:, n:] = IGNORE_INDEX
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
