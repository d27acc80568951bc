# RIGHT: pads int64 copies with torch.nn.utils.rnn.pad_sequence (padding 0), then writes pad_id where the mask is 0 with masked_fill, which keeps an int exact.

### BEGIN SOLUTION pad_collate
    sequences = [seq.to(torch.long) for seq in batch]  # widen first: pad_id may not fit the input dtype
    padded = torch.nn.utils.rnn.pad_sequence(sequences, batch_first=True, padding_value=0)
    lengths = torch.tensor([len(seq) for seq in batch])
    attention_mask = (torch.arange(padded.shape[1]).unsqueeze(0) < lengths.unsqueeze(1)).to(torch.long)
    input_ids = padded.masked_fill(attention_mask == 0, pad_id)
    labels = torch.where(attention_mask.bool(), input_ids, torch.full_like(input_ids, IGNORE_INDEX))
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
