"""Fence 1 of the handout (LAB.md, "Fence 1: collation and padding"), as a test.

It shows what default_collate does with ragged sequences, then runs your
``pad_collate`` through a DataLoader (num_workers=0: no processes).
"""

import pytest
import torch
from torch.utils.data import DataLoader, default_collate


@pytest.mark.collate
def test_fence1_default_collate_rules_and_pad_collate(lab):
    """default_collate stacks and widens; ragged stacks fail; pad_collate right-pads and masks.

    Does not prove that the loss ignores padding: that is ignore_index's contract.
    """
    torch.manual_seed(0)
    features, targets = default_collate([(torch.randn(3), i % 2) for i in range(4)])
    assert features.shape == (4, 3) and targets.shape == (4,), "default_collate stacks 4 samples into a batch dimension"
    assert targets.dtype == torch.int64, "Python ints collate to int64"
    assert default_collate([0.5, 1.5]).dtype == torch.float64, "Python floats collate to float64"

    sequences = [torch.randint(1, 50, (n,)) for n in (5, 2, 7, 3)]
    with pytest.raises(RuntimeError, match="equal size"):
        default_collate(sequences)

    batch = next(iter(DataLoader(sequences, batch_size=4, collate_fn=lab.collate.pad_collate)))
    shape = tuple(batch["input_ids"].shape)
    assert shape == (4, 7), f"4 sequences, the longest 7 long: expected input_ids of shape (4, 7), got {shape}"
    real = batch["attention_mask"].sum(1).tolist()
    assert real == [5, 2, 7, 3], f"the mask's rows should count the real tokens [5, 2, 7, 3], got {real}"
    padded = batch["labels"][batch["attention_mask"] == 0].tolist()
    assert all(label == -100 for label in padded), f"labels should be -100 wherever the mask is 0, got {padded} there"
    row = batch["input_ids"][1, :2].tolist()
    assert row == sequences[1].tolist(), f"row 1 should start with sequence 1, {sequences[1].tolist()}, got {row}"
