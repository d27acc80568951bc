# WRONG: builds the mask from a lengths tensor made with batch[0].new_tensor, which has the input dtype; uint8 sequences of lengths 300 and 1 make the call raise RuntimeError 'value cannot be converted to type uint8 without overflow' instead of returning a mask whose row 0 has 300 ones.
# breaks: collate.any_integer_dtype_gives_the_same_tables
# witness of: test_collate.py::test_narrow_sequences_longer_than_their_dtype_holds

### BEGIN SOLUTION pad_collate
    lengths = [int(seq.shape[0]) for seq in batch]
    B, T = len(batch), max(lengths)
    input_ids = torch.full((B, T), pad_id, dtype=torch.long)
    lens = batch[0].new_tensor(lengths)
    attention_mask = (torch.arange(T) < lens[:, None]).long()
    for i, seq in enumerate(batch):
        n = lengths[i]
        input_ids[i, :n] = seq.to(torch.long)
        labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
