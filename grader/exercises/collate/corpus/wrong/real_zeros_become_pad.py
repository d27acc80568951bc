# WRONG: starts from a zero buffer and then turns every 0 into pad_id; pad_collate([tensor([0, 5]), tensor([7])], pad_id=9)['input_ids'] is [[9, 5], [7, 9]] instead of [[0, 5], [7, 9]] (invisible with the default pad_id=0).
# breaks: collate.input_ids_are_right_padded, collate.labels_are_ids_with_minus_100_at_padding
# witness of: test_collate.py::test_a_real_zero_stays_a_zero_with_another_pad_id

### BEGIN SOLUTION pad_collate
    lengths = [int(seq.shape[0]) for seq in batch]
    B, T = len(batch), max(lengths)
    input_ids = torch.zeros((B, T), dtype=torch.long)
    attention_mask = torch.zeros((B, T), dtype=torch.long)
    for i, seq in enumerate(batch):
        n = lengths[i]
        input_ids[i, :n] = seq.to(torch.long)
        attention_mask[i, :n] = 1
    input_ids[input_ids == 0] = pad_id
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
