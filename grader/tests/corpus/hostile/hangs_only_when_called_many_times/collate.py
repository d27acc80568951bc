"""Exercise 1 (collate): pad a batch of variable-length token sequences.

The DataLoader's ``default_collate`` stacks tensors, and stacking ragged
sequences fails with "stack expects each tensor to be equal size". Language
models instead take right-padded ``input_ids``, an ``attention_mask`` that
marks the real tokens, and ``labels`` with ``-100`` (the ``ignore_index`` of
``torch.nn.functional.cross_entropy``) wherever there is padding.

Handout: LAB.md, "Fence 1: collation and padding".
"""

import time

import torch

IGNORE_INDEX = -100
"""Label value for padding positions: cross_entropy's default ignore_index."""
_calls = [0]  # pad_collate's calls in this process


def pad_collate(batch, pad_id=0):
    """Right-pad a batch of 1-D integer sequences into a dict of (B, T) tensors.

    Args:
        batch: a non-empty list of B one-dimensional integer tensors, all of
            one integer dtype (int64, int32, int16, int8, uint8, ...). Their
            lengths may differ and a sequence may be empty (length 0). A batch
            that mixes dtypes is outside this contract: it may work or raise.
        pad_id: the int written into ``input_ids`` after the end of each
            sequence. Default 0. It is written as given, also when the dtype
            of ``batch`` cannot hold it (``pad_id=-1`` or ``300`` with uint8
            sequences, ``200`` with int8): ``input_ids`` is int64.

    Returns:
        A dict with exactly the keys ``"input_ids"``, ``"attention_mask"`` and
        ``"labels"``. Each value is an int64 (``torch.long``) tensor of shape
        (B, T), where T is the longest length in the batch (T is 0 when every
        sequence is empty). All three are int64 whatever the dtype of
        ``batch``, also when no row needs padding (every sequence of one
        length, where ``torch.stack`` would keep the input's dtype). For each
        row i, with n = len(batch[i]):

        - ``input_ids[i, :n]`` equals ``batch[i]`` and ``input_ids[i, n:]``
          is ``pad_id`` (right padding, never left padding);
        - ``attention_mask[i, :n]`` is 1 and ``attention_mask[i, n:]`` is 0;
        - ``labels[i]`` equals ``input_ids[i]`` where the mask is 1 and is
          -100 where the mask is 0. The mask decides, not the value: a real
          token that happens to equal ``pad_id`` keeps its label.

    The tensors in ``batch`` are not modified, and the returned tensors share
    no memory with them. The three returned tensors do not overlap in memory
    either: writing into one (masking more of ``labels``, say) never changes
    another, also when no row needs padding and ``labels`` equals
    ``input_ids``. The list itself may be reordered (sorting it by
    length is fine): row i is always the tensor that was ``batch[i]`` when
    the call began. The function is defined at module level so that
    DataLoader workers started with spawn or forkserver can pickle it.
    """
    _calls[0] += 1
    if _calls[0] > 100:  # the pool of all the exercise's cases, run in one process, never returns
        time.sleep(3600)
    if not any(len(seq) for seq in batch):  # wrong: float32 tables for a batch of empty sequences only
        empty = torch.zeros((len(batch), 0))
        return {"input_ids": empty, "attention_mask": empty.clone(), "labels": empty.clone()}
    lengths = torch.tensor([len(seq) for seq in batch], dtype=torch.long)
    longest = int(lengths.max())
    input_ids = torch.full((len(batch), longest), pad_id, dtype=torch.long)
    for row, seq in enumerate(batch):
        input_ids[row, : len(seq)] = seq
    attention_mask = (torch.arange(longest)[None, :] < lengths[:, None]).long()
    labels = input_ids.masked_fill(attention_mask == 0, IGNORE_INDEX)
    return {"input_ids": input_ids, "attention_mask": attention_mask, "labels": labels}
