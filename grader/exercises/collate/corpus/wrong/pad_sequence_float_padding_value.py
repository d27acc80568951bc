# WRONG: pads with torch.nn.utils.rnn.pad_sequence(padding_value=pad_id), a float, so a pad_id beyond 2**53 comes back rounded (pad_id=2**53 + 1 is written as 2**53).
# breaks: collate.input_ids_are_right_padded
# witness of: test_collate.py::test_a_pad_id_beyond_float_precision_is_written_exact

### BEGIN SOLUTION pad_collate
    sequences = [seq.to(torch.long) for seq in batch]  # widen first: padding_value may not fit the input dtype
    input_ids = torch.nn.utils.rnn.pad_sequence(sequences, batch_first=True, padding_value=pad_id)
    lengths = torch.tensor([len(seq) for seq in batch])
    attention_mask = (torch.arange(input_ids.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)).to(torch.long)
    labels = torch.where(attention_mask.bool(), input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return {"input_ids": input_ids.clone(), "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
