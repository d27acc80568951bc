"""Exercise 2: ShardedRange and ShardedFiles (see exercises/sharding.py)."""

import tracemalloc

import pytest
from torch.utils.data import DataLoader, IterableDataset

from conftest import batches, fails_here_if_not_done, start_methods, worker_loader

pytestmark = pytest.mark.sharding


class Unsharded(IterableDataset):
    """The naive stream of the lab's experiment (a): every worker yields all of range(n)."""

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        return iter(range(self.n))


def drain(dataset, start_method, num_workers=2):
    """Every item the workers yield, in arrival order."""
    fails_here_if_not_done(lambda: list(dataset))
    with batches(worker_loader(dataset, start_method, num_workers=num_workers, batch_size=None)) as it:
        return [item for item in it]


def write_shards(folder, contents, names=None):
    paths = []
    for i, text in enumerate(contents):
        path = folder / (names[i] if names else f"shard{i}.txt")
        path.write_bytes(text.encode("utf-8"))
        paths.append(path)
    return paths


SHARDS = ["a0\na1\na2", "", "c0\r\nc1\r\n", "d0\n", "e0\ne1\n", "f0"]
LINES = [["a0", "a1", "a2"], [], ["c0", "c1"], ["d0"], ["e0", "e1"], ["f0"]]


def test_range_without_workers_yields_0_to_n_minus_1(lab):
    assert list(lab.sharding.ShardedRange(7)) == list(range(7))
    dataset = lab.sharding.ShardedRange(3)
    assert list(dataset) == list(dataset) == [0, 1, 2], "every iter() starts afresh"
    assert list(DataLoader(dataset, batch_size=None, num_workers=0)) == [0, 1, 2], "a DataLoader without workers yields 0..n-1 in order"


def test_range_yields_python_ints(lab):
    types = sorted({type(i).__name__ for i in lab.sharding.ShardedRange(5)})
    assert types == ["int"], f"ShardedRange should yield plain Python ints, got items of type {types}"


@pytest.mark.workers
@pytest.mark.timeout(90)
@pytest.mark.parametrize("start_method", start_methods())
def test_two_workers_yield_each_integer_exactly_once(lab, start_method):
    sharded = drain(lab.sharding.ShardedRange(50), start_method)
    naive = drain(Unsharded(50), start_method)
    assert len(naive) == 100, "two worker processes ran (the unsharded stream comes out twice)"
    assert sorted(sharded) == list(range(50)), "sharded: each integer exactly once"


@pytest.mark.workers
@pytest.mark.timeout(60)
@pytest.mark.filterwarnings("ignore:This DataLoader will create")
def test_fewer_items_than_workers(lab):
    assert sorted(drain(lab.sharding.ShardedRange(2), "fork" if "fork" in start_methods() else "spawn", num_workers=4)) == [0, 1]


def test_files_without_workers_yield_every_line_in_order(lab, tmp_path):
    paths = write_shards(tmp_path, SHARDS)
    dataset = lab.sharding.ShardedFiles(paths)
    expected = [line for lines in LINES for line in lines]
    assert list(dataset) == expected, "line endings removed, a last line without newline kept"
    assert list(dataset) == expected, "every iter() starts afresh"


def test_files_remove_only_the_line_ending(lab, tmp_path):
    """A line keeps its own blanks; empty lines are lines; a bare "\r" ends a line too; files are UTF-8."""
    contents = ["e0\n\ne2\n", "  i0 \n\ti1\t\r\nj0\rj1", "f0 \u00e9\u4e2d\n"]
    expected = ["e0", "", "e2", "  i0 ", "\ti1\t", "j0", "j1", "f0 \u00e9\u4e2d"]
    got = list(lab.sharding.ShardedFiles(write_shards(tmp_path, contents)))
    assert got == expected, f"over files {contents!r}:\n  expected {expected!r}\n  got      {got!r}"


def test_files_bom_and_other_line_boundaries_either_way(lab, tmp_path):
    """A byte order mark may be kept or removed; \\v, \\f, \\x85, \\u2028 ... all end a line, or none does."""
    contents = ["\ufeffb0\nb1\n", "v0\x0bv1\x0cv2\n", "x0\x85x1\u2028x2\n"]
    got = list(lab.sharding.ShardedFiles(write_shards(tmp_path, contents)))
    allowed = [[bom + "b0", "b1", *rest] for bom in ("\ufeff", "")
               for rest in (["v0\x0bv1\x0cv2", "x0\x85x1\u2028x2"], ["v0", "v1", "v2", "x0", "x1", "x2"])]
    assert got in allowed, f"over files {contents!r}:\n  expected one of {allowed!r}\n  got {got!r}"


def test_files_in_the_order_given(lab, tmp_path):
    """paths is used as given (Path objects here): not sorted, and a path listed twice is read twice."""
    written = write_shards(tmp_path, ["z0\n", "m0\nm1\n", "a0\n"], names=["z.txt", "m.txt", "a.txt"])
    paths = [written[0], written[1], written[2], written[1]]  # z, m, a, m
    assert list(lab.sharding.ShardedFiles(paths)) == ["z0", "m0", "m1", "a0", "m0", "m1"], "in the order of paths, repeats included"
    rank0 = list(lab.sharding.ShardedFiles(paths, rank=0, world_size=2))
    rank1 = list(lab.sharding.ShardedFiles(paths, rank=1, world_size=2))
    assert (rank0, rank1) == (["z0", "a0"], ["m0", "m1", "m0", "m1"]), "rank r reads paths[r::2] of the list as given"


def test_files_read_line_by_line(lab, tmp_path):
    """Traces Python's allocations: a line at a time is small, a whole file (read(), readlines(), list(f)) is not."""
    path = tmp_path / "big.txt"
    path.write_text(("x" * 65535 + "\n") * 64, encoding="utf-8")  # 4 MB in 64 lines
    tracemalloc.start()
    try:
        count = sum(1 for _ in lab.sharding.ShardedFiles([path]))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert count == 64
    assert peak < 1_000_000, (f"iterating a 4 MB file of 64 lines allocated {peak:,} bytes at the peak: the file was read whole; "
                              "iterate the open file line by line (for line in f) and yield as you go")


def test_files_two_ranks_split_the_files(lab, tmp_path):
    paths = write_shards(tmp_path, SHARDS)
    rank0 = list(lab.sharding.ShardedFiles(paths, rank=0, world_size=2))
    rank1 = list(lab.sharding.ShardedFiles(paths, rank=1, world_size=2))
    assert rank0 == LINES[0] + LINES[2] + LINES[4], "rank 0 reads files[0::2]"
    assert rank1 == LINES[1] + LINES[3] + LINES[5], "rank 1 reads files[1::2]"


@pytest.mark.workers
@pytest.mark.timeout(90)
def test_files_two_ranks_two_workers_each_line_exactly_once(lab, tmp_path):
    """One start method (fork on Linux): the sharding is the same under every method, and the range test above covers the others."""
    start_method = start_methods()[0]
    paths = write_shards(tmp_path, SHARDS)
    per_rank = [drain(lab.sharding.ShardedFiles(paths, rank=r, world_size=2), start_method) for r in range(2)]
    # 2 ranks x 2 workers = 4 readers; reader rank*2 + worker reads files[reader::4].
    assert sorted(per_rank[0]) == sorted(LINES[0] + LINES[4] + LINES[1] + LINES[5])
    assert sorted(per_rank[1]) == sorted(LINES[2] + LINES[3])
