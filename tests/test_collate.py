"""Exercise 1: pad_collate (see its docstring in exercises/collate.py)."""

import warnings

import pytest
import torch
from torch.utils.data import DataLoader

from conftest import batches, start_methods, worker_loader

pytestmark = pytest.mark.collate


def test_returns_the_three_keys_as_int64_b_by_t(lab):
    out = lab.collate.pad_collate([torch.tensor([3, 1, 4]), torch.tensor([1]), torch.tensor([5, 9, 2, 6])])
    assert set(out) == {"input_ids", "attention_mask", "labels"}
    for key, value in out.items():
        assert value.dtype == torch.int64, f"{key} should be int64, got {value.dtype}"
        assert value.shape == (3, 4), f"{key} should have shape (B, T) = (3, 4), got {tuple(value.shape)}"


def test_right_pads_masks_and_labels_a_small_batch(lab):
    out = lab.collate.pad_collate([torch.tensor([3, 1, 4]), torch.tensor([1]), torch.tensor([5, 9, 2, 6])], pad_id=0)
    assert out["input_ids"].tolist() == [[3, 1, 4, 0], [1, 0, 0, 0], [5, 9, 2, 6]]
    assert out["attention_mask"].tolist() == [[1, 1, 1, 0], [1, 0, 0, 0], [1, 1, 1, 1]]
    assert out["labels"].tolist() == [[3, 1, 4, -100], [1, -100, -100, -100], [5, 9, 2, 6]]


def test_a_real_token_equal_to_pad_id_keeps_its_label(lab):
    out = lab.collate.pad_collate([torch.tensor([7, 2, 7]), torch.tensor([7])], pad_id=7)
    assert out["input_ids"].tolist() == [[7, 2, 7], [7, 7, 7]]
    assert out["attention_mask"].tolist() == [[1, 1, 1], [1, 0, 0]]
    assert out["labels"].tolist() == [[7, 2, 7], [7, -100, -100]], "the mask decides the labels, not the value"


def test_empty_sequences(lab):
    out = lab.collate.pad_collate([torch.tensor([], dtype=torch.long), torch.tensor([4, 5])])
    assert out["input_ids"].tolist() == [[0, 0], [4, 5]]
    assert out["attention_mask"].tolist() == [[0, 0], [1, 1]]
    assert out["labels"].tolist() == [[-100, -100], [4, 5]]
    all_empty = lab.collate.pad_collate([torch.tensor([], dtype=torch.long)] * 3)
    assert all_empty["input_ids"].shape == (3, 0) and all_empty["labels"].dtype == torch.int64


@pytest.mark.parametrize("dtype, big", [(torch.int32, 200), (torch.uint8, 200), (torch.int16, 200), (torch.int8, 100)])
def test_any_integer_dtype_comes_out_int64(lab, dtype, big):
    """One dtype per batch, any integer dtype (a batch that mixes dtypes is outside the contract)."""
    out = lab.collate.pad_collate([torch.tensor([big, 3], dtype=dtype), torch.tensor([1], dtype=dtype)])
    assert out["input_ids"].dtype == torch.int64
    assert out["input_ids"].tolist() == [[big, 3], [1, 0]]


@pytest.mark.parametrize("dtype", [torch.int32, torch.uint8])
def test_same_length_batches_come_out_int64_too(lab, dtype):
    """No row needs padding here, and torch.stack would keep the input's dtype: the tables are still int64."""
    out = lab.collate.pad_collate([torch.tensor([5, 6], dtype=dtype), torch.tensor([7, 8], dtype=dtype)])
    for key, value in out.items():
        assert value.dtype == torch.int64, f"{key} of a same-length {dtype} batch should be int64, got {value.dtype}"
    assert out["input_ids"].tolist() == [[5, 6], [7, 8]] and out["attention_mask"].tolist() == [[1, 1], [1, 1]]


@pytest.mark.parametrize("dtype, pad_id", [(torch.uint8, 300), (torch.uint8, -1), (torch.int8, 200)])
def test_pad_id_need_not_fit_the_input_dtype(lab, dtype, pad_id):
    out = lab.collate.pad_collate([torch.tensor([1, 2], dtype=dtype), torch.tensor([3], dtype=dtype)], pad_id=pad_id)
    got = out["input_ids"].tolist()
    assert got == [[1, 2], [3, pad_id]], (f"pad_id={pad_id} with {dtype} sequences: expected input_ids [[1, 2], [3, {pad_id}]], "
                                          f"got {got}; input_ids is int64, so pad there, not in the input's dtype")


def test_inputs_are_not_modified_and_not_shared(lab):
    """The tensors are compared as objects: the list itself may be reordered, its tensors may not be changed."""
    batch = [torch.tensor([1, 2, 3]), torch.tensor([4])]
    tensors = list(batch)
    copies = [t.clone() for t in tensors]
    out = lab.collate.pad_collate(batch)
    out["input_ids"].fill_(-1)
    assert all(torch.equal(a, b) for a, b in zip(tensors, copies)), "pad_collate must not change its input tensors (nor share memory with them)"


def test_works_as_collate_fn_in_process(lab):
    sequences = [torch.arange(1, n + 1) for n in (2, 5, 1, 3)]
    loader = DataLoader(sequences, batch_size=2, collate_fn=lab.collate.pad_collate)
    assert [tuple(b["input_ids"].shape) for b in loader] == [(2, 5), (2, 3)]


def test_pin_memory_loader_gives_the_documented_batches(lab):
    """With pin_memory=True the batches are pinned where CUDA is (and copy to the GPU intact); without an accelerator PyTorch ignores pinning."""
    sequences = [torch.tensor([1, 2, 3]), torch.tensor([4]), torch.tensor([5, 6]), torch.tensor([], dtype=torch.long)]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*pin_memory.*")  # PyTorch's "no accelerator is found"
        got = list(DataLoader(sequences, batch_size=2, collate_fn=lab.collate.pad_collate, pin_memory=True))
    expected = [
        {"input_ids": [[1, 2, 3], [4, 0, 0]], "attention_mask": [[1, 1, 1], [1, 0, 0]], "labels": [[1, 2, 3], [4, -100, -100]]},
        {"input_ids": [[5, 6], [0, 0]], "attention_mask": [[1, 1], [0, 0]], "labels": [[5, 6], [-100, -100]]},
    ]
    assert [{k: v.tolist() for k, v in b.items()} for b in got] == expected, "with pin_memory=True the batches differ from the documented ones"
    pinned = [t.is_pinned() for b in got for t in b.values()]
    if torch.cuda.is_available():
        assert all(pinned), f"with CUDA, every tensor of a pin_memory=True batch should be pinned, got {pinned}"
        tensors = [t for b in got for t in b.values()]
        copies = [t.to("cuda", non_blocking=True) for t in tensors]
        torch.cuda.synchronize()
        assert all(torch.equal(c.cpu(), t) for c, t in zip(copies, tensors)), "the GPU copy differs from the CPU batch"
    else:
        assert not any(pinned), "without an accelerator nothing can be pinned"


SEQUENCES = [torch.arange(1, n + 1) for n in (3, 1, 4, 1, 5, 9, 2, 6)]


@pytest.mark.workers
@pytest.mark.timeout(90)
@pytest.mark.parametrize("start_method", start_methods())
def test_same_batches_in_worker_processes(lab, start_method):
    """Workers must be able to pickle pad_collate (module level) and give the in-process result."""
    expected = list(DataLoader(SEQUENCES, batch_size=3, collate_fn=lab.collate.pad_collate))
    loader = worker_loader(SEQUENCES, start_method, batch_size=3, collate_fn=lab.collate.pad_collate)
    with batches(loader) as it:
        got = list(it)
    assert len(got) == len(expected)
    for g, e in zip(got, expected):
        assert all(torch.equal(g[k], e[k]) for k in e)
