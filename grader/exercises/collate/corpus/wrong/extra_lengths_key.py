# WRONG: also returns a 'lengths' entry; pad_collate([tensor([1])]) has keys input_ids, attention_mask, labels, lengths instead of exactly three keys.
# breaks: collate.returns_exactly_the_three_keys

### BEGIN SOLUTION pad_collate
    lengths = [int(seq.shape[0]) for seq in batch]
    B, T = len(batch), max(lengths)
    input_ids = torch.full((B, T), pad_id, dtype=torch.long)
    attention_mask = torch.zeros((B, T), dtype=torch.long)
    for i, seq in enumerate(batch):
        n = lengths[i]
        input_ids[i, :n] = seq.to(torch.long)
        attention_mask[i, :n] = 1
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels, "lengths": torch.tensor(lengths, dtype=torch.long)}
### END SOLUTION
