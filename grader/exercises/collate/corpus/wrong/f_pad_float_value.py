# WRONG: widens each row to int64 and pads it with F.pad(value=pad_id), a float, so a pad_id beyond 2**53 comes back rounded (pad_id=2**53 + 1 is written as 2**53).
# breaks: collate.input_ids_are_right_padded
# witness of: test_collate.py::test_a_pad_id_beyond_float_precision_is_written_exact
import torch.nn.functional as F

### BEGIN SOLUTION pad_collate
    dtypes = {seq.dtype for seq in batch}
    if len(dtypes) > 1:
        raise TypeError(f"pad_collate takes a batch of one dtype, got {sorted(map(str, dtypes))}")
    longest = max(len(seq) for seq in batch)
    rows = [F.pad(seq.long(), (0, longest - len(seq)), value=pad_id) for seq in batch]
    masks = [F.pad(torch.ones(len(seq), dtype=torch.long), (0, longest - len(seq))) for seq in batch]
    input_ids, attention_mask = torch.stack(rows), torch.stack(masks)
    labels = input_ids.clone()
    labels[attention_mask == 0] = IGNORE_INDEX
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
