# WRONG: inside a DataLoader worker it pads in the batch's own dtype, to send smaller batches back; int32 and uint8 batches then come out of workers int32 and uint8 (or raise on -100), while the main process gives int64.
# breaks: collate.same_batches_in_real_workers

### BEGIN SOLUTION pad_collate
    lengths = torch.tensor([len(seq) for seq in batch], dtype=torch.long)
    longest = int(lengths.max())
    in_worker = torch.utils.data.get_worker_info() is not None
    dtype = batch[0].dtype if in_worker else torch.long
    input_ids = torch.full((len(batch), longest), pad_id, dtype=dtype)
    for row, seq in enumerate(batch):
        input_ids[row, : len(seq)] = seq
    attention_mask = (torch.arange(longest)[None, :] < lengths[:, None]).long()
    labels = input_ids.to(torch.long).masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
