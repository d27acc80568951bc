"""Exercise 1: pad_collate (see its docstring in exercises/collate.py)."""

import warnings

import pytest
import torch
from lab_helpers import batches, start_methods, worker_loader
from torch.utils.data import DataLoader

pytestmark = pytest.mark.collate


def expect_table(out, key, expected, what):
    """Assert that out[key] holds ``expected`` (compared as lists), saying ``what`` was expected when it does not."""
    assert isinstance(out, dict) and key in out, \
        f"expected a dict with the key {key!r}, got {sorted(out) if isinstance(out, dict) else type(out).__name__}"
    got = out[key].tolist()
    assert got == expected, f"{key}: expected {expected} ({what}), got {got}"


def test_returns_the_three_keys_as_int64_b_by_t(lab):
    out = lab.collate.pad_collate([torch.tensor([3, 1, 4]), torch.tensor([1]), torch.tensor([5, 9, 2, 6])])
    assert isinstance(out, dict), f"pad_collate should return a dict, got {type(out).__name__}"
    assert set(out) == {"input_ids", "attention_mask", "labels"}, \
        f"expected exactly the keys ['attention_mask', 'input_ids', 'labels'], got {sorted(out)}"
    for key, value in out.items():
        assert value.dtype == torch.int64, f"{key} should be int64, got {value.dtype}"
        assert value.shape == (3, 4), f"{key} should have shape (B, T) = (3, 4), got {tuple(value.shape)}"


def test_right_pads_masks_and_labels_a_small_batch(lab):
    out = lab.collate.pad_collate([torch.tensor([3, 1, 4]), torch.tensor([1]), torch.tensor([5, 9, 2, 6])], pad_id=0)
    expect_table(out, "input_ids", [[3, 1, 4, 0], [1, 0, 0, 0], [5, 9, 2, 6]], "each row right-padded with pad_id")
    expect_table(out, "attention_mask", [[1, 1, 1, 0], [1, 0, 0, 0], [1, 1, 1, 1]], "1 on the real tokens, 0 on the padding")
    expect_table(out, "labels", [[3, 1, 4, -100], [1, -100, -100, -100], [5, 9, 2, 6]], "the tokens, and -100 on the padding")


def test_ids_beyond_float_precision_come_back_exact(lab):
    """Token ids above 2**24 (float32's exact integers) and 2**53 (float64's): int64 all the way, never a float buffer."""
    ids = [2**24 + 1, 2**53 + 1]
    out = lab.collate.pad_collate([torch.tensor(ids), torch.tensor([2**62 + 1])], pad_id=0)
    expect_table(out, "input_ids", [ids, [2**62 + 1, 0]], "the ids as given (pad into an int64 table)")
    expect_table(out, "labels", [ids, [2**62 + 1, -100]], "the ids as given, and -100 on the padding")


def test_a_pad_id_beyond_float_precision_is_written_exact(lab):
    """pad_id is an int written as given: 2**53 + 1 through a float (F.pad's value, pad_sequence's padding_value) becomes 2**53."""
    pad = 2**53 + 1
    out = lab.collate.pad_collate([torch.tensor([4]), torch.tensor([5, 6, 7])], pad_id=pad)
    expect_table(out, "input_ids", [[4, pad, pad], [5, 6, 7]], "each row right-padded with pad_id exactly (an int64 table)")


def test_a_real_token_equal_to_pad_id_keeps_its_label(lab):
    out = lab.collate.pad_collate([torch.tensor([7, 2, 7]), torch.tensor([7])], pad_id=7)
    expect_table(out, "input_ids", [[7, 2, 7], [7, 7, 7]], "each row right-padded with pad_id")
    expect_table(out, "attention_mask", [[1, 1, 1], [1, 0, 0]], "the lengths decide the mask, not the values")
    expect_table(out, "labels", [[7, 2, 7], [7, -100, -100]], "the mask decides the labels, not the value")


def test_a_real_zero_stays_a_zero_with_another_pad_id(lab):
    """Padding is written where a row ends, with pad_id: a real 0 inside a row is a token like any other."""
    out = lab.collate.pad_collate([torch.tensor([0, 5]), torch.tensor([7])], pad_id=9)
    expect_table(out, "input_ids", [[0, 5], [7, 9]], "real zeros kept, each row right-padded with pad_id 9")
    expect_table(out, "labels", [[0, 5], [7, -100]], "real zeros keep their labels")


def test_empty_sequences(lab, documented_default):
    """Without a pad_id, the padding is the signature's default pad_id."""
    pad = documented_default("collate", "pad_collate", "pad_id")
    out = lab.collate.pad_collate([torch.tensor([], dtype=torch.long), torch.tensor([4, 5])])
    expect_table(out, "input_ids", [[pad, pad], [4, 5]], f"an empty sequence keeps its row, all padding (the default pad_id, {pad})")
    expect_table(out, "attention_mask", [[0, 0], [1, 1]], "an empty sequence keeps its row, all padding")
    expect_table(out, "labels", [[-100, -100], [4, 5]], "an empty sequence keeps its row, all padding")
    all_empty = lab.collate.pad_collate([torch.tensor([], dtype=torch.long)] * 3)
    shape = tuple(all_empty["input_ids"].shape)
    assert shape == (3, 0), f"three empty sequences: expected input_ids of shape (B, T) = (3, 0), got {shape}"


@pytest.mark.parametrize("lengths", [(2, 1), (2, 2)], ids=["ragged", "no_padding"])
def test_the_three_tables_share_no_memory(lab, lengths):
    out = lab.collate.pad_collate([torch.arange(1, n + 1) for n in lengths])
    before = {key: value.clone() for key, value in out.items()}
    out["labels"].fill_(7)
    for key in ("input_ids", "attention_mask"):
        assert torch.equal(out[key], before[key]), f"writing into labels changed {key}: return three tensors of their own"


def test_writing_into_returned_tables_changes_no_later_batch(lab):
    """The caller owns what pad_collate returns (a training loop masks labels in place): whatever it writes there, the
    next call, with the same lengths, gives the documented tables."""
    first = lab.collate.pad_collate([torch.tensor([1, 2, 3]), torch.tensor([4])])
    for table in first.values():
        table.fill_(-7)
    again = lab.collate.pad_collate([torch.tensor([5, 6, 7]), torch.tensor([8])])
    expect_table(again, "attention_mask", [[1, 1, 1], [1, 0, 0]], "after the caller wrote -7 into the last call's tables")
    expect_table(again, "labels", [[5, 6, 7], [8, -100, -100]], "after the caller wrote -7 into the last call's tables")


def test_narrow_sequences_longer_than_their_dtype_holds(lab):
    """A length is not a token: 300 uint8 tokens are a row of 300, although uint8 stops at 255."""
    out = lab.collate.pad_collate([torch.ones(300, dtype=torch.uint8), torch.tensor([2], dtype=torch.uint8)])
    mask = out["attention_mask"]
    assert tuple(mask.shape) == (2, 300), f"uint8 sequences of lengths 300 and 1: expected a (2, 300) mask, got {tuple(mask.shape)}"
    assert mask.sum(dim=1).tolist() == [300, 1], f"expected 300 and 1 real tokens per row, got {mask.sum(dim=1).tolist()}"


@pytest.mark.parametrize("dtype, big", [(torch.int32, 200), (torch.uint8, 200), (torch.int16, 200), (torch.int8, 100)],
                         ids=["int32", "uint8", "int16", "int8"])
def test_any_integer_dtype_comes_out_int64(lab, dtype, big):
    """One dtype per batch, any integer dtype (a batch that mixes dtypes is outside the contract)."""
    out = lab.collate.pad_collate([torch.tensor([big, 3], dtype=dtype), torch.tensor([1], dtype=dtype)], pad_id=0)
    for key, value in out.items():
        assert value.dtype == torch.int64, f"{key} of a {dtype} batch should be int64, got {value.dtype}"
    expect_table(out, "input_ids", [[big, 3], [1, 0]], f"the {dtype} tokens, right-padded")
    expect_table(out, "labels", [[big, 3], [1, -100]], f"the {dtype} tokens, and -100 on the padding")


@pytest.mark.parametrize("dtype", [torch.int32, torch.uint8], ids=["int32", "uint8"])
def test_same_length_batches_come_out_int64_too(lab, dtype):
    """No row needs padding here, and torch.stack would keep the input's dtype: the tables are still int64."""
    out = lab.collate.pad_collate([torch.tensor([5, 6], dtype=dtype), torch.tensor([7, 8], dtype=dtype)])
    for key, value in out.items():
        assert value.dtype == torch.int64, f"{key} of a same-length {dtype} batch should be int64, got {value.dtype}"
    expect_table(out, "input_ids", [[5, 6], [7, 8]], "no row needs padding")


@pytest.mark.parametrize("dtype, pad_id", [(torch.uint8, 300), (torch.uint8, -1), (torch.int8, 200)],
                         ids=["uint8_pad_300", "uint8_pad_minus_1", "int8_pad_200"])
def test_pad_id_need_not_fit_the_input_dtype(lab, dtype, pad_id):
    try:
        out = lab.collate.pad_collate([torch.tensor([1, 2], dtype=dtype), torch.tensor([3], dtype=dtype)], pad_id=pad_id)
    except (RuntimeError, OverflowError) as error:
        pytest.fail(f"pad_collate(<{dtype} sequences>, pad_id={pad_id}) raised {type(error).__name__}: {error}\n"
                    f"  {dtype} cannot hold {pad_id}, but input_ids is int64: build the tables in int64 "
                    "(torch.full(..., pad_id, dtype=torch.long)) and copy each sequence in, never pad in the input's dtype")
    got = out["input_ids"].tolist()
    assert got == [[1, 2], [3, pad_id]], (f"pad_id={pad_id} with {dtype} sequences: expected input_ids [[1, 2], [3, {pad_id}]], "
                                          f"got {got}; input_ids is int64, so pad there, not in the input's dtype")


def test_inputs_are_not_modified_and_not_shared(lab):
    """The tensors are compared as objects: the list itself may be reordered, its tensors may not be changed."""
    batch = [torch.tensor([1, 2, 3]), torch.tensor([4])]
    tensors = list(batch)
    copies = [t.clone() for t in tensors]
    out = lab.collate.pad_collate(batch)
    assert all(torch.equal(a, b) for a, b in zip(tensors, copies)), \
        f"pad_collate changed its input tensors: expected {[t.tolist() for t in copies]}, got {[t.tolist() for t in tensors]}"
    for value in out.values():
        value.fill_(-1)
    assert all(torch.equal(a, b) for a, b in zip(tensors, copies)), \
        "filling the returned tables changed the input tensors: they share memory; build new tensors (torch.full + copy)"
    single = torch.tensor([5, 6])  # nothing to pad: where a copy is most easily forgotten
    for value in lab.collate.pad_collate([single]).values():
        value.fill_(-1)
    assert single.tolist() == [5, 6], "filling the tables of a batch of one sequence changed that sequence: they share memory"


def test_works_as_collate_fn_in_process(lab):
    sequences = [torch.arange(1, n + 1) for n in (2, 5, 1, 3)]
    loader = DataLoader(sequences, batch_size=2, collate_fn=lab.collate.pad_collate)
    shapes = [tuple(b["input_ids"].shape) for b in loader]
    assert shapes == [(2, 5), (2, 3)], f"batches of lengths (2, 5) and (1, 3): expected input_ids of shapes [(2, 5), (2, 3)], got {shapes}"


def test_pin_memory_loader_gives_the_documented_batches(lab, documented_default):
    """With pin_memory=True the batches are pinned where CUDA is (and copy to the GPU intact); without an accelerator PyTorch ignores pinning."""
    p = documented_default("collate", "pad_collate", "pad_id")  # a DataLoader's collate_fn gets no pad_id
    sequences = [torch.tensor([1, 2, 3]), torch.tensor([4]), torch.tensor([5, 6]), torch.tensor([], dtype=torch.long)]
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*pin_memory.*")  # PyTorch's "no accelerator is found"
        got = list(DataLoader(sequences, batch_size=2, collate_fn=lab.collate.pad_collate, pin_memory=True))
    expected = [
        {"input_ids": [[1, 2, 3], [4, p, p]], "attention_mask": [[1, 1, 1], [1, 0, 0]], "labels": [[1, 2, 3], [4, -100, -100]]},
        {"input_ids": [[5, 6], [p, p]], "attention_mask": [[1, 1], [0, 0]], "labels": [[5, 6], [-100, -100]]},
    ]
    tables = [{k: v.tolist() for k, v in b.items()} for b in got]
    assert tables == expected, f"with pin_memory=True: expected the batches {expected}, got {tables}"
    pinned = [t.is_pinned() for b in got for t in b.values()]
    if torch.cuda.is_available():
        assert all(pinned), f"with CUDA, every tensor of a pin_memory=True batch should be pinned, got {pinned}"
        tensors = [t for b in got for t in b.values()]
        copies = [t.to("cuda", non_blocking=True) for t in tensors]
        torch.cuda.synchronize()
        assert all(torch.equal(c.cpu(), t) for c, t in zip(copies, tensors)), "the GPU copy differs from the CPU batch"
    else:
        assert not any(pinned), "without an accelerator nothing can be pinned"


# batches of 3, one dtype each: the tensors a spawn or forkserver worker gets are pickled, dtype and all
SEQUENCES = [torch.arange(1, n + 1, dtype=dtype) for n, dtype in zip(
    (3, 1, 4, 1, 5, 9, 2, 2), [torch.int64] * 3 + [torch.int32] * 3 + [torch.uint8] * 2)]  # the last batch: nothing to pad


@pytest.mark.workers
@pytest.mark.timeout(90)
@pytest.mark.parametrize("start_method", start_methods())
def test_same_batches_in_worker_processes(lab, start_method):
    """Workers must be able to pickle pad_collate (module level) and give the in-process result, for int64, int32 and
    uint8 batches."""
    expected = list(DataLoader(SEQUENCES, batch_size=3, collate_fn=lab.collate.pad_collate))
    loader = worker_loader(SEQUENCES, start_method, batch_size=3, collate_fn=lab.collate.pad_collate)
    with batches(loader) as it:
        got = list(it)
    assert len(got) == len(expected), f"with {start_method} workers: expected {len(expected)} batches, as without workers, got {len(got)}"
    for index, (g, e) in enumerate(zip(got, expected)):
        assert all(g[k].dtype == e[k].dtype and torch.equal(g[k], e[k]) for k in e), (
            f"with {start_method} workers, batch {index} differs from the one without workers (values or dtype):\n"
            f"  expected {e}\n  got      {g}")
        ids = g["input_ids"].clone()
        g["labels"].fill_(-100)
        assert torch.equal(g["input_ids"], ids), (
            f"with {start_method} workers, batch {index}: writing into labels changed input_ids, so the worker returned one "
            "tensor as both: make each table its own tensor, in workers too")
