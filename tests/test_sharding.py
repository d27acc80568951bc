"""Exercise 2: ShardedRange and ShardedFiles (see exercises/sharding.py)."""

import tracemalloc

import pytest
from lab_helpers import as_worker, batches, fails_here_if_not_done, start_methods, worker_loader
from torch.utils.data import DataLoader, IterableDataset

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
    got = list(lab.sharding.ShardedRange(7))
    assert got == list(range(7)), f"list(ShardedRange(7)): expected [0, 1, ..., 6], got {got}"
    dataset = lab.sharding.ShardedRange(3)
    first, second = list(dataset), list(dataset)
    assert first == second == [0, 1, 2], \
        f"two passes over one ShardedRange(3): expected [0, 1, 2] twice (every iter() starts afresh), got {first} and {second}"
    next(iter(dataset))  # a partial pass, dropped
    after_partial = list(dataset)
    assert after_partial == [0, 1, 2], f"a pass after a partial one: expected [0, 1, 2] (every iter() starts afresh), got {after_partial}"
    loader = list(DataLoader(lab.sharding.ShardedRange(3), batch_size=None, num_workers=0))
    assert loader == [0, 1, 2], f"a DataLoader without workers: expected 0..n-1 in order, [0, 1, 2], got {loader}"


def test_range_yields_python_ints(lab):
    types = sorted({type(i).__name__ for i in lab.sharding.ShardedRange(5)})
    assert types == ["int"], f"ShardedRange should yield plain Python ints, got items of type {types}"


@pytest.mark.workers
@pytest.mark.timeout(90)
def test_range_yields_python_ints_in_workers(lab):
    """batch_size=None hands each item on as the worker yields it: a NumPy integer would reach the training loop."""
    got = drain(lab.sharding.ShardedRange(6), "fork" if "fork" in start_methods() else "spawn")
    types = sorted({type(i).__name__ for i in got})
    assert types == ["int"], f"2 workers, batch_size=None: ShardedRange should yield plain Python ints there too, got {types}"


@pytest.mark.workers
@pytest.mark.timeout(90)
@pytest.mark.parametrize("start_method", start_methods())
def test_two_workers_yield_each_integer_exactly_once(lab, start_method):
    sharded = drain(lab.sharding.ShardedRange(50), start_method)
    naive = drain(Unsharded(50), start_method)
    assert len(naive) == 100, f"two worker processes should have run (the unsharded stream twice: 100 items), got {len(naive)} items"
    assert sorted(sharded) == list(range(50)), \
        f"sharded over 2 {start_method} workers: expected each of 0..49 exactly once, got (sorted) {sorted(sharded)}"


@pytest.mark.workers
@pytest.mark.timeout(90)
@pytest.mark.parametrize("n, k", [(5, 2), (7, 3), (9, 6)])
def test_remainders_each_integer_exactly_once(lab, n, k):
    """n % k != 0 with n >= k: the last n % k integers belong to some worker too."""
    got = sorted(drain(lab.sharding.ShardedRange(n), "fork" if "fork" in start_methods() else "spawn", num_workers=k))
    assert got == list(range(n)), f"ShardedRange({n}) over {k} workers: expected each of 0..{n - 1} exactly once, got (sorted) {got}"


@pytest.mark.workers
@pytest.mark.timeout(90)
def test_workers_shard_after_a_pass_in_the_main_process(lab):
    """Iterating the dataset once in the main process (to count it, say) must not fix which share a worker takes."""
    ds = lab.sharding.ShardedRange(4)
    assert list(ds) == [0, 1, 2, 3], "without workers: expected 0..3"
    got = sorted(drain(ds, "fork" if "fork" in start_methods() else "spawn", num_workers=2))
    assert got == [0, 1, 2, 3], (f"after list(ds) in the main process, 2 workers should still yield each of 0..3 once, got (sorted) "
                                 f"{got}: read get_worker_info() in every __iter__ and keep nothing of it on the dataset")


@pytest.mark.workers
@pytest.mark.timeout(90)
@pytest.mark.filterwarnings("ignore:This DataLoader will create")
def test_fewer_items_than_workers(lab):
    got = sorted(drain(lab.sharding.ShardedRange(2), "fork" if "fork" in start_methods() else "spawn", num_workers=4))
    assert got == [0, 1], f"ShardedRange(2) over 4 workers: expected 0 and 1 once each (two workers yield nothing), got {got}"


def test_files_without_workers_yield_every_line_in_order(lab, tmp_path):
    paths = write_shards(tmp_path, SHARDS)
    dataset = lab.sharding.ShardedFiles(paths)
    expected = [line for lines in LINES for line in lines]
    got = list(dataset)
    assert got == expected, f"over files {SHARDS!r}: expected {expected!r} (line endings removed, a last line without newline kept), got {got!r}"
    again = list(dataset)
    assert again == expected, f"a second iter() should start afresh and give {expected!r} again, got {again!r}"


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


def test_files_a_mark_inside_a_file_is_kept(lab, tmp_path):
    """Only a byte order mark at the very start of a file may go: one inside it is an ordinary character."""
    contents = ["x\n\ufeffy\n"]
    got = list(lab.sharding.ShardedFiles(write_shards(tmp_path, contents)))
    assert got == ["x", "\ufeffy"], f"over a file {contents[0]!r}: expected ['x', '\\ufeffy'], got {got!r}"


def test_files_in_the_order_given(lab, tmp_path):
    """paths is used as given (Path objects here): not sorted, and a path listed twice is read twice."""
    written = write_shards(tmp_path, ["z0\n", "m0\nm1\n", "a0\n"], names=["z.txt", "m.txt", "a.txt"])
    paths = [written[0], written[1], written[2], written[1]]  # z, m, a, m
    got = list(lab.sharding.ShardedFiles(paths))
    assert got == ["z0", "m0", "m1", "a0", "m0", "m1"], f"paths z, m, a, m: expected their lines in that order, repeats included, got {got}"
    rank0 = list(lab.sharding.ShardedFiles(paths, rank=0, world_size=2))
    rank1 = list(lab.sharding.ShardedFiles(paths, rank=1, world_size=2))
    assert (rank0, rank1) == (["z0", "a0"], ["m0", "m1", "m0", "m1"]), \
        f"rank r reads paths[r::2] of the list as given: expected ['z0', 'a0'] and ['m0', 'm1', 'm0', 'm1'], got {rank0} and {rank1}"


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
    assert count == 64, f"a file of 64 lines should yield 64 lines, got {count}"
    assert peak < 1_000_000, (f"iterating a 4 MB file of 64 lines allocated {peak:,} bytes at the peak: the file was read whole; "
                              "iterate the open file line by line (for line in f) and yield as you go")


def test_files_two_ranks_split_the_files(lab, tmp_path):
    paths = write_shards(tmp_path, SHARDS)
    rank0 = list(lab.sharding.ShardedFiles(paths, rank=0, world_size=2))
    rank1 = list(lab.sharding.ShardedFiles(paths, rank=1, world_size=2))
    want0, want1 = LINES[0] + LINES[2] + LINES[4], LINES[1] + LINES[3] + LINES[5]
    assert rank0 == want0, f"rank 0 of 2 reads files[0::2]: expected {want0}, got {rank0}"
    assert rank1 == want1, f"rank 1 of 2 reads files[1::2]: expected {want1}, got {rank1}"


@pytest.mark.workers
@pytest.mark.timeout(90)
def test_files_two_ranks_two_workers_each_line_exactly_once(lab, tmp_path):
    """One start method (fork on Linux): the sharding is the same under every method, and the range test above covers the others."""
    start_method = start_methods()[0]
    paths = write_shards(tmp_path, SHARDS)
    per_rank = [drain(lab.sharding.ShardedFiles(paths, rank=r, world_size=2), start_method) for r in range(2)]
    # 2 ranks x 2 workers = 4 readers; reader rank*2 + worker reads files[reader::4].
    for rank, files in ((0, (0, 4, 1, 5)), (1, (2, 3))):
        want = sorted(line for f in files for line in LINES[f])
        assert sorted(per_rank[rank]) == want, (f"rank {rank} of 2 with 2 workers: readers {2 * rank} and {2 * rank + 1} read "
                                                f"files {list(files)}, expected (sorted) {want}, got {sorted(per_rank[rank])}")


# The same promises with the workers simulated in this process (lab_helpers.as_worker): seconds, not a minute, and
# many worker counts. The worker tests above stay the proof that real workers agree.

@pytest.mark.parametrize("n, k", [(4, 2), (5, 2), (7, 3), (9, 6), (12, 5), (2, 4), (0, 3)])
@pytest.mark.parametrize("main_pass_first", [False, True], ids=["fresh", "after_a_pass"])
def test_range_in_simulated_workers_each_integer_exactly_once(lab, n, k, main_pass_first):
    """k workers, each iterating its own copy of the dataset; "after_a_pass": the dataset was iterated once in this
    process first (to count it, say), which must not fix which share a worker takes."""
    dataset = lab.sharding.ShardedRange(n)
    if main_pass_first:
        list(dataset)
    shares = []
    for worker_id in range(k):
        with as_worker(dataset, worker_id, k) as copy:
            shares.append(list(copy))
    not_ints = sorted({type(x).__name__ for share in shares for x in share if type(x) is not int})
    assert not not_ints, (f"ShardedRange({n}) in {k} workers (simulated here) yielded {not_ints}, not plain Python ints: "
                          "yield int(i), inside workers too")
    got = sorted(x for share in shares for x in share)
    missing = sorted(set(range(n)) - set(got))
    repeated = sorted({x for x in got if got.count(x) > 1})
    where = f"ShardedRange({n}) in {k} workers (simulated here{', after list(ds) in this process' if main_pass_first else ''})"
    assert got == list(range(n)), (f"{where}: the workers yielded {shares}; together they must yield each of 0..{n - 1} "
                                   f"exactly once (missing {missing}, repeated {repeated}): the last share takes the "
                                   "remainder, and get_worker_info() is read in every __iter__")


@pytest.mark.parametrize("world_size, k", [(2, 2), (1, 3), (3, 2), (2, 3)])
def test_files_readers_in_simulated_workers(lab, tmp_path, world_size, k):
    """Reader rank * k + worker_id of world_size * k reads paths[reader::world_size * k], one file a reader here."""
    paths = write_shards(tmp_path, [f"f{i}\n" for i in range(10)])
    for rank in range(world_size):
        for worker_id in range(k):
            with as_worker(lab.sharding.ShardedFiles(paths, rank=rank, world_size=world_size), worker_id, k) as copy:
                got = list(copy)
            reader, readers = rank * k + worker_id, world_size * k
            want = [f"f{i}" for i in range(reader, 10, readers)]
            assert got == want, (f"ShardedFiles(files f0..f9 of one line each, rank={rank}, world_size={world_size}) in "
                                 f"worker {worker_id} of {k} (simulated here): reader rank * k + worker_id = {reader} of "
                                 f"{readers} reads paths[{reader}::{readers}], expected {want}, got {got}")
