# WRONG: Inside a DataLoader worker, when no row needs padding, it returns labels as the same tensor as input_ids (believing the queue copies each tensor), so in the main process the two share one storage.
# breaks: collate.inputs_are_not_modified
# witness of: test_collate.py::test_same_batches_in_worker_processes

import torch.utils.data

### BEGIN SOLUTION pad_collate
    lengths = torch.tensor([len(seq) for seq in batch], dtype=torch.long)
    longest = int(lengths.max())
    input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
    for row, seq in enumerate(batch):
        input_ids[row, : len(seq)] = seq
    attention_mask = (torch.arange(longest)[None, :] < lengths[:, None]).long()
    if torch.utils.data.get_worker_info() is not None and bool(attention_mask.all()):
        labels = input_ids  # the worker queue gives the main process its own copies anyway
    else:
        labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
### END SOLUTION
