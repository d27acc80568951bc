# RIGHT: right-pads each row with torch.cat against a new_full tail and stacks the rows.

### BEGIN SOLUTION pad_collate
    longest = max(seq.numel() for seq in batch)

    def padded(seq, fill):
        tail = torch.full((longest - seq.numel(),), fill, dtype=torch.long)
        return torch.cat([seq.to(torch.long), tail])

    input_ids = torch.stack([padded(seq, pad_id) for seq in batch])
    labels = torch.stack([padded(seq, IGNORE_INDEX) for seq in batch])
    attention_mask = torch.stack([padded(torch.ones(seq.numel(), dtype=torch.long), 0) for seq in batch])
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
