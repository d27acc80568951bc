# WRONG: pads each row with F.pad(value=pad_id) in the input's dtype and widens afterwards, so a pad_id the dtype cannot hold (300 or -1 with uint8) raises, and F.pad's value is a float, so a pad_id beyond 2**53 comes back rounded.
# breaks: collate.input_ids_are_right_padded, collate.pad_id_outside_the_input_dtype
# witness of: test_collate.py::test_pad_id_need_not_fit_the_input_dtype; test_collate.py::test_a_pad_id_beyond_float_precision_is_written_exact
import torch.nn.functional as F

### BEGIN SOLUTION pad_collate
    longest = max(len(seq) for seq in batch)
    rows = [F.pad(seq, (0, longest - len(seq)), value=pad_id) for seq in batch]  # in the input's dtype
    input_ids = torch.stack(rows).long() if rows[0].dtype != torch.long else torch.stack(rows)
    lengths = torch.tensor([len(seq) for seq in batch])
    attention_mask = (torch.arange(longest)[None, :] < lengths[:, None]).long()
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
