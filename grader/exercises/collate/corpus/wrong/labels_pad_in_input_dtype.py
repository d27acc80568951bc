# WRONG: builds labels with pad_sequence(padding_value=-100) in the input dtype and widens afterwards; for uint8 input [tensor([1,2],uint8), tensor([3],uint8)] the call raises RuntimeError 'value cannot be converted to type uint8_t without overflow' instead of returning labels [[1, 2], [3, -100]].
# breaks: collate.any_integer_dtype_gives_the_same_tables, collate.int64_also_when_no_row_needs_padding, collate.pad_id_outside_the_input_dtype

### BEGIN SOLUTION pad_collate
    lengths = [int(seq.shape[0]) for seq in batch]
    B, T = len(batch), max(lengths)
    input_ids = torch.full((B, T), pad_id, dtype=torch.long)
    attention_mask = torch.zeros((B, T), dtype=torch.long)
    for i, seq in enumerate(batch):
        n = lengths[i]
        input_ids[i, :n] = seq.to(torch.long)
        attention_mask[i, :n] = 1
    labels = torch.nn.utils.rnn.pad_sequence(list(batch), batch_first=True, padding_value=IGNORE_INDEX).long()
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
