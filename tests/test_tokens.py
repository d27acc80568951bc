"""Exercise 5: TokenWindows (see exercises/tokens.py)."""

import pickle
import tracemalloc
import warnings

import numpy as np
import pytest
import torch
from lab_helpers import WholeBatches, batches, fails_here_if_not_done, start_methods, worker_loader
from torch.utils.data import BatchSampler, DataLoader, SequentialSampler

pytestmark = pytest.mark.tokens


@pytest.fixture
def token_file(tmp_path):
    """100 uint16 tokens 60000, 60001, ...: ids above 32767 catch int16 views."""
    path = tmp_path / "train.bin"
    (np.arange(100, dtype=np.uint16) + 60000).tofile(path)
    return path


@pytest.mark.parametrize("block_size, stride, expected", [(8, 1, 92), (8, 8, 12), (99, 1, 1), (100, 1, 0), (10, 7, 13)],
                         ids=["block_8_stride_1", "block_8_stride_8", "block_99_one_window", "block_100_no_window", "block_10_stride_7"])
def test_len_counts_the_windows_that_fit(lab, token_file, block_size, stride, expected):
    got = len(lab.tokens.TokenWindows(token_file, block_size, stride=stride))
    assert got == expected, (f"100 tokens, block_size={block_size}, stride={stride}: expected {expected} windows "
                             f"(max(0, (n - block_size - 1) // stride + 1)), got {got}")


def test_a_window_is_x_and_y_shifted_by_one(lab, token_file):
    ds = lab.tokens.TokenWindows(token_file, block_size=4, stride=3)
    x, y = ds[2]
    for name, part in (("x", x), ("y", y)):
        assert isinstance(part, torch.Tensor) and part.dtype == torch.int64, f"ds[2]: {name} should be an int64 tensor, got {part!r}"
        assert part.shape == (4,), f"ds[2]: {name} should have shape (block_size,) = (4,), got {tuple(part.shape)}"
    assert x.tolist() == [60006, 60007, 60008, 60009], f"ds[2] with stride 3: x should be tokens 6..9, [60006, ..., 60009], got {x.tolist()}"
    assert y.tolist() == [60007, 60008, 60009, 60010], f"ds[2] with stride 3: y should be tokens 7..10, [60007, ..., 60010], got {y.tolist()}"


def test_negative_and_out_of_range_indices(lab, token_file):
    ds = lab.tokens.TokenWindows(token_file, block_size=8, stride=8)  # 12 windows
    for negative, positive in ((-1, 11), (-12, 0)):
        got, want = ds[negative][0].tolist(), ds[positive][0].tolist()
        assert got == want, f"12 windows: ds[{negative}] should be ds[{positive}] (x = {want}), got x = {got}"
    for bad in (12, 13, -13, 2**63, -(2**63) - 1):  # any other int, also one no int64 holds
        with pytest.raises(IndexError):
            ds[bad]


@pytest.mark.parametrize("kwargs", [{"block_size": 0}, {"block_size": 4, "stride": 0}], ids=["block_size_0", "stride_0"])
def test_rejects_sizes_below_one(lab, token_file, kwargs):
    with pytest.raises(ValueError):
        lab.tokens.TokenWindows(token_file, **kwargs)


def test_rejects_a_file_that_is_not_whole_tokens(lab, tmp_path):
    path = tmp_path / "odd.bin"
    path.write_bytes(b"\x01\x02\x03")
    with pytest.raises(ValueError):
        lab.tokens.TokenWindows(path, block_size=1)


def test_rejects_a_file_that_is_not_whole_tokens_of_its_dtype(lab, tmp_path):
    path = tmp_path / "six.bin"
    path.write_bytes(bytes(6))  # three uint16 tokens, but not whole uint32 ones
    with pytest.raises(ValueError):
        lab.tokens.TokenWindows(path, block_size=1, dtype=np.uint32)


def test_uint32_ids_beyond_int32_come_back_exact(lab, tmp_path):
    path = tmp_path / "big_ids.bin"
    np.array([3_000_000_000, 4_294_967_295, 7], dtype=np.uint32).tofile(path)
    x, y = lab.tokens.TokenWindows(path, block_size=2, dtype=np.uint32)[0]
    assert (x.tolist(), y.tolist()) == ([3_000_000_000, 4_294_967_295], [4_294_967_295, 7]), \
        f"uint32 ids above 2**31 should come back as they are (widen straight to int64), got ({x.tolist()}, {y.tolist()})"


def test_other_dtypes(lab, tmp_path):
    path = tmp_path / "wide.bin"
    np.array([70000, 1, 2, 3], dtype=np.uint32).tofile(path)
    x, y = lab.tokens.TokenWindows(path, block_size=2, dtype=np.uint32)[0]
    assert (x.tolist(), y.tolist()) == ([70000, 1], [1, 2]), \
        f"uint32 tokens 70000, 1, 2, 3, block_size=2: ds[0] should be ([70000, 1], [1, 2]), got ({x.tolist()}, {y.tolist()})"


def test_pickles_small_after_use(lab, tmp_path):
    path = tmp_path / "big.bin"
    np.arange(100_000, dtype=np.uint16).tofile(path)  # 200,000 bytes
    ds = lab.tokens.TokenWindows(path, block_size=16)
    size = len(pickle.dumps(ds))
    assert size < 2000, f"pickled right after __init__ to {size} bytes: open the memmap lazily, on first use"
    len(ds), ds[5], ds[-1]
    size = len(pickle.dumps(ds))
    assert size < 2000, f"pickled to {size} bytes: the memmap or the tokens went into the pickle"
    ds.read_batch([0, 1]), ds.__getitems__([2, 3])
    size = len(pickle.dumps(ds))
    assert size < 2000, f"pickled after read_batch and __getitems__ to {size} bytes: keep no memmap they used in the pickle"
    clone = pickle.loads(pickle.dumps(ds))
    assert clone[5][0].tolist() == ds[5][0].tolist(), "an unpickled copy should read the same windows as the dataset"


def test_pickles_small_after_reading_a_long_window(lab, tmp_path):
    path = tmp_path / "big.bin"
    np.arange(100_000, dtype=np.uint16).tofile(path)
    ds = lab.tokens.TokenWindows(path, block_size=4096)  # a window is 4,097 tokens, 8 kB
    ds[3]
    size = len(pickle.dumps(ds))
    assert size < 4096, f"pickled after ds[3] to {size} bytes: keep no window (or any token) on the dataset"


def test_windows_of_an_int64_file_are_their_own_tensors(lab, tmp_path):
    """An int64 file needs no widening, but x and y still may not view the read-only memmap."""
    path = tmp_path / "wide.bin"
    np.arange(64, dtype=np.int64).tofile(path)
    x, y = lab.tokens.TokenWindows(path, block_size=8, dtype=np.int64)[0]
    before = x.clone(), y.clone()
    with open(path, "r+b") as f:
        f.write((np.arange(64, dtype=np.int64) + 1000).tobytes())
    assert torch.equal(x, before[0]) and torch.equal(y, before[1]), \
        "rewriting the file changed x or y read before: they view the memmap; copy the window (astype copies, copy=False does not)"


def test_a_path_read_again_as_another_dtype(lab, tmp_path):
    """Each dataset reads its file as its own dtype: a memmap kept per path (for all datasets of the process) would give
    the second dataset the first one's tokens."""
    path = tmp_path / "bytes.bin"
    np.arange(40, dtype=np.uint8).tofile(path)
    as_uint16 = lab.tokens.TokenWindows(path, block_size=2, dtype=np.uint16)
    first = as_uint16[0][0].tolist()
    as_uint8 = lab.tokens.TokenWindows(path, block_size=2, dtype=np.uint8)
    assert as_uint8[0][0].tolist() == [0, 1], (f"the same file read as uint8 after a dataset read it as uint16 ({first}): "
                                               f"expected x = [0, 1], got {as_uint8[0][0].tolist()}")


def test_a_pickled_copy_reads_what_the_dataset_reads(lab, tmp_path):
    """A DataLoader worker under spawn or forkserver gets the dataset pickled: the copy keeps its dtype, and one over an
    empty file (which cannot be mapped) unpickles and has no window."""
    path = tmp_path / "int32.bin"
    (np.arange(30, dtype=np.int32) + 70_000).tofile(path)
    ds = lab.tokens.TokenWindows(path, block_size=4, dtype=np.int32)
    len(ds), ds[0]
    copy = pickle.loads(pickle.dumps(ds))
    assert [t.tolist() for t in copy[3]] == [t.tolist() for t in ds[3]], (
        f"a pickled copy of TokenWindows(<int32 file>, block_size=4, dtype=np.int32) gave {copy[3]} for [3], the dataset "
        f"{ds[3]}: keep the dtype in what you pickle")
    empty = tmp_path / "empty.bin"
    empty.write_bytes(b"")
    nothing = pickle.loads(pickle.dumps(lab.tokens.TokenWindows(empty, block_size=4)))
    assert len(nothing) == 0, "a pickled copy of a dataset over an empty file should have len 0"


def test_len_of_an_empty_file_is_0(lab, tmp_path):
    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    got = len(lab.tokens.TokenWindows(path, block_size=1))
    assert got == 0, f"len() of a dataset over an empty file should be 0 (count from the file's size), got {got!r}"


def test_getitems_gives_tuples_equal_to_the_per_item_reads(lab, token_file):
    ds = lab.tokens.TokenWindows(token_file, block_size=4)
    (pair,) = ds.__getitems__([0])
    assert isinstance(pair, tuple), f"__getitems__ should return (x, y) tuples, as ds[i] does, got a {type(pair).__name__}"


def test_getitems_returns_the_per_item_windows(lab, token_file):
    ds = lab.tokens.TokenWindows(token_file, block_size=4, stride=3)
    indices = [2, 0, -1, 2, 31]
    got = ds.__getitems__(indices)
    shape = f"a {type(got).__name__} of {len(got)} items" if isinstance(got, (list, tuple)) else f"a {type(got).__name__}"
    assert isinstance(got, list) and len(got) == len(indices), \
        f"__getitems__({indices}) should return a list of {len(indices)} (x, y) pairs, got {shape}"
    for (gx, gy), i in zip(got, indices):
        x, y = ds[i]
        assert gx.dtype == gy.dtype == torch.int64 and gx.shape == gy.shape == (4,), \
            f"__getitems__: the pair for index {i} should be int64 tensors of shape (4,), got {gx!r}, {gy!r}"
        assert torch.equal(gx, x) and torch.equal(gy, y), \
            f"__getitems__: the pair for index {i} should be ds[{i}] = ({x.tolist()}, {y.tolist()}), got ({gx.tolist()}, {gy.tolist()})"
    assert ds.__getitems__([]) == [], "an empty batch of indices gives an empty list"


@pytest.mark.parametrize("bad", [32, -33, 2**63, -(2**63) - 1], ids=["len", "minus_len_minus_1", "beyond_int64", "below_int64"])
def test_getitems_rejects_an_index_out_of_range(lab, token_file, bad):
    """The first index past either end: len, and -len - 1 (which a wrapped offset would silently read); and ints no
    int64 holds, which an unchecked np.array(indices, dtype=np.int64) turns into OverflowError."""
    ds = lab.tokens.TokenWindows(token_file, block_size=4, stride=3)  # 32 windows: -32 <= i < 32
    with pytest.raises(IndexError):
        ds.__getitems__([0, bad])


class CountingMemmap(np.memmap):
    """np.memmap that counts how often a file's own memmap is indexed (arrays made from it are not counted)."""

    reads = 0

    def __getitem__(self, index):
        if getattr(self, "_mmap", None) is not None:  # the file's own memmap, not a copy made from it
            CountingMemmap.reads += 1
        return super().__getitem__(index)


def memmap_reads(call):
    """How often ``call()`` indexes a memmap (the dataset must have been made while np.memmap was CountingMemmap)."""
    before = CountingMemmap.reads
    call()
    return CountingMemmap.reads - before


def test_read_batch_gathers_the_batch_in_one_read(lab, token_file, monkeypatch):
    """Counts how often the memmap is indexed: once per batch (one gather), not once per window nor once for x and y."""
    monkeypatch.setattr(np, "memmap", CountingMemmap)
    ds = lab.tokens.TokenWindows(token_file, block_size=4)
    ds.read_batch([0])  # opens the memmap
    reads = memmap_reads(lambda: ds.read_batch(list(range(16))))
    assert reads <= 1, (f"read_batch of 16 windows took {reads} reads of the memmap; gather them with one fancy index of a "
                        "(B, T + 1) block, and take x and y as its two slices")


def test_getitems_reads_no_more_than_read_batch(lab, token_file, monkeypatch):
    """__getitems__ is defined through read_batch: it reads the memmap no more often than read_batch does."""
    monkeypatch.setattr(np, "memmap", CountingMemmap)
    ds = lab.tokens.TokenWindows(token_file, block_size=4)
    ds.__getitems__([0])  # opens the memmap
    batch = list(range(16))
    theirs, ours = memmap_reads(lambda: ds.read_batch(batch)), memmap_reads(lambda: ds.__getitems__(batch))
    assert ours <= theirs, (f"__getitems__ of 16 windows took {ours} reads of the memmap, read_batch {theirs}: "
                            "define __getitems__ through read_batch (its rows as pairs)")


def test_read_batch_stacks_the_per_item_windows(lab, token_file):
    ds = lab.tokens.TokenWindows(token_file, block_size=4, stride=3)
    indices = [2, 0, -1, 2, 31]
    got = ds.read_batch(indices)
    assert isinstance(got, tuple) and len(got) == 2, f"read_batch({indices}) should return a tuple (x, y), got {type(got).__name__}"
    for name, part, k in (("x", got[0], 0), ("y", got[1], 1)):
        assert isinstance(part, torch.Tensor) and part.dtype == torch.int64 and part.shape == (5, 4), \
            f"read_batch({indices}): {name} should be an int64 tensor of shape (5, 4), got {part!r}"
        want = torch.stack([ds[i][k] for i in indices])
        assert torch.equal(part, want), f"read_batch({indices}): {name} should stack the per-item reads, {want.tolist()}, got {part.tolist()}"


@pytest.mark.parametrize("bad", [32, -33, 2**63, -(2**63) - 1], ids=["len", "minus_len_minus_1", "beyond_int64", "below_int64"])
def test_read_batch_rejects_an_index_out_of_range(lab, token_file, bad):
    """The first index past either end: len, and -len - 1 (which a wrapped offset would silently read); and ints no
    int64 holds, which an unchecked np.array(indices, dtype=np.int64) turns into OverflowError."""
    ds = lab.tokens.TokenWindows(token_file, block_size=4, stride=3)  # 32 windows: -32 <= i < 32
    with pytest.raises(IndexError):
        ds.read_batch([0, bad])


def test_read_batch_of_no_index_has_no_rows_even_for_an_empty_file(lab, token_file, tmp_path):
    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    for file in (token_file, path):
        x, y = lab.tokens.TokenWindows(file, block_size=3).read_batch([])
        for name, part in (("x", x), ("y", y)):
            assert part.dtype == torch.int64 and part.shape == (0, 3), \
                f"read_batch([]) on {file.name}: {name} should be an int64 tensor of shape (0, 3), got {part!r}"


@pytest.mark.workers
@pytest.mark.timeout(90)
@pytest.mark.parametrize("start_method", start_methods())
def test_whole_batches_in_worker_processes(lab, token_file, start_method):
    ds = lab.tokens.TokenWindows(token_file, block_size=8, stride=4)  # 23 windows
    fails_here_if_not_done(lambda: ds.read_batch([0]))  # opened in the parent first: workers must still receive only the path
    sampler = BatchSampler(SequentialSampler(range(len(ds))), batch_size=5, drop_last=False)
    expected = [ds.read_batch(indices) for indices in sampler]
    with batches(worker_loader(WholeBatches(ds), start_method, num_workers=1, sampler=sampler, batch_size=None)) as it:
        got = list(it)
    assert len(got) == len(expected), f"with {start_method} workers: expected {len(expected)} whole batches, got {len(got)}"
    for index, ((gx, gy), (ex, ey)) in enumerate(zip(got, expected)):
        assert torch.equal(gx, ex) and torch.equal(gy, ey), (f"with {start_method} workers, whole batch {index} differs from "
                                                              f"read_batch in this process: expected x {ex.tolist()}, got {gx.tolist()}")


def test_the_memmap_is_opened_on_first_use(lab, tmp_path):
    """__init__ and len() need only the file's size: no np.memmap is open on the dataset before a window is read."""
    path = tmp_path / "tokens.bin"
    np.arange(1000, dtype=np.uint16).tofile(path)
    ds = lab.tokens.TokenWindows(path, block_size=8)
    assert len(ds) == 992, f"len() of 1,000 tokens with block_size=8 should be 992, got {len(ds)}"
    opened = sorted(name for name, value in vars(ds).items() if isinstance(value, np.memmap))
    assert not opened, (f"after __init__ and len() alone, {opened} already hold a np.memmap: open it when tokens are first "
                        "needed (__getitem__, read_batch), not in __init__ or len()")
    x, y = ds[0]
    assert x.tolist() == list(range(8)), f"ds[0] should give x = tokens 0..7, got {x.tolist()}"


def test_never_reads_the_file_whole(lab, tmp_path):
    """Traces Python's and NumPy's allocations: a memmap's pages are not allocations, a copy of the file is."""
    path = tmp_path / "large.bin"
    np.zeros(2_000_000, dtype=np.uint16).tofile(path)  # 4 MB of tokens
    tracemalloc.start()
    try:
        ds = lab.tokens.TokenWindows(path, block_size=64)
        n = len(ds)
        ds[0], ds[n // 2], ds[-1], ds.__getitems__([0, 1, n - 1])
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 1_000_000, (f"len(), three windows and a batch of three over a 4 MB token file allocated {peak:,} bytes at the peak: "
                              "the file (or a widened copy of it) was read whole; use np.memmap and widen one window at a time")


def windows_of_token_file(block_size, stride, indices):
    """The documented (x, y) of the token_file fixture (token k is 60000 + k), as lists."""
    return [(list(range(60000 + i * stride, 60000 + i * stride + block_size)),
             list(range(60001 + i * stride, 60001 + i * stride + block_size))) for i in indices]


def test_pin_memory_loader_gives_the_documented_batches(lab, token_file):
    """With pin_memory=True the batches are pinned where CUDA is (and copy to the GPU intact); without an accelerator PyTorch ignores pinning."""
    ds = lab.tokens.TokenWindows(token_file, block_size=8, stride=4)  # 23 windows
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message=".*pin_memory.*")  # PyTorch's "no accelerator is found"
        got = list(DataLoader(ds, batch_size=5, pin_memory=True))
    rows = [(x, y) for bx, by in got for x, y in zip(bx.tolist(), by.tolist())]
    want = windows_of_token_file(8, 4, range(23))
    assert rows == want, f"with pin_memory=True: expected the 23 documented windows, from {want[0]} on, got {rows[:1]} ... ({len(rows)} windows)"
    pinned = [t.is_pinned() for batch in got for t in batch]
    if torch.cuda.is_available():
        assert all(pinned), f"with CUDA, every tensor of a pin_memory=True batch should be pinned, got {pinned}"
        copies = [t.to("cuda", non_blocking=True) for batch in got for t in batch]
        torch.cuda.synchronize()
        assert all(torch.equal(c.cpu(), t) for c, t in zip(copies, [t for batch in got for t in batch])), "the GPU copy differs"
    else:
        assert not any(pinned), "without an accelerator nothing can be pinned"


@pytest.mark.workers
@pytest.mark.timeout(90)
@pytest.mark.parametrize("start_method", start_methods())
def test_same_batches_in_worker_processes(lab, token_file, start_method):
    ds = lab.tokens.TokenWindows(token_file, block_size=8, stride=4)
    ds[0]  # opened in the parent first: workers must still receive only the path
    expected = list(DataLoader(ds, batch_size=5))
    with batches(worker_loader(ds, start_method, batch_size=5)) as it:
        got = list(it)
    assert len(got) == len(expected), f"with {start_method} workers: expected {len(expected)} batches, as without workers, got {len(got)}"
    for index, ((gx, gy), (ex, ey)) in enumerate(zip(got, expected)):
        assert torch.equal(gx, ex) and torch.equal(gy, ey), (f"with {start_method} workers, batch {index} differs from the one "
                                                              f"without workers: expected x {ex.tolist()}, got {gx.tolist()}")


def test_getitems_of_no_index_is_empty_even_for_an_empty_file(lab, tmp_path):
    path = tmp_path / "empty.bin"
    path.write_bytes(b"")
    got = lab.tokens.TokenWindows(path, block_size=1).__getitems__([])
    assert got == [], f"__getitems__([]) on an empty file should return [], got {got!r}"
