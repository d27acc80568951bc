# WRONG: labels is the same tensor as input_ids, so writing -100 into labels also overwrites the padding of input_ids.
# breaks: collate.input_ids_are_right_padded, collate.inputs_are_not_modified

### BEGIN SOLUTION pad_collate
    ids = torch.nn.utils.rnn.pad_sequence([seq.long() for seq in batch], batch_first=True, padding_value=pad_id)
    lengths = torch.tensor([len(seq) for seq in batch], dtype=torch.long)
    attention_mask = (torch.arange(ids.shape[1])[None, :] < lengths[:, None]).long()
    labels = ids
    labels[attention_mask == 0] = IGNORE_INDEX
    return {"input_ids": ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
