# WRONG: gives worker w the block starting at w * round(n / k), the last worker taking the rest, without clipping to n; ShardedRange(9) with k=6 has worker 4 yield [8, 9], so 9 (outside 0..n-1) is yielded.
# breaks: sharding.range_exactly_once
"""Exercise 2 (sharding): iterable datasets that yield each item exactly once.

Every DataLoader worker receives its own copy of an ``IterableDataset`` and
iterates it from the start, so without sharding k workers yield the stream k
times. The fix is to ask ``torch.utils.data.get_worker_info()`` *inside*
``__iter__`` (it returns None in the main process and in ``__init__``) which
worker is running, and keep only that worker's share.

Handout: LAB.md, "IterableDataset duplication" and "Experiment (a): sharding".
"""

from torch.utils.data import IterableDataset, get_worker_info


class ShardedRange(IterableDataset):
    """The integers ``0, 1, ..., n - 1`` as a stream that shards across workers.

    Args:
        n: how many integers to yield (n >= 0).

    Iterating yields plain Python ints. Without DataLoader workers
    (``num_workers=0``, or iterating the dataset directly) it yields
    ``0..n-1`` in order. Under a DataLoader with any ``num_workers`` k >= 1,
    each worker yields a disjoint share and every integer in ``0..n-1`` is
    yielded exactly once in total, also when n is smaller than k (some
    workers then yield nothing). Which integers each worker takes, and in
    which order it yields them, is up to you (every k-th integer from the
    worker's id, or one contiguous block per worker): only "exactly once in
    total" is promised. Which worker runs is read in ``__iter__``, never in
    ``__init__``, and every call to ``iter()`` starts afresh.
    """

    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        size = round(self.n / info.num_workers)
        start = info.id * size
        stop = self.n if info.id == info.num_workers - 1 else start + size
        return iter(range(start, stop))


class ShardedFiles(IterableDataset):
    """The lines of several text files, with whole files as shards.

    Args:
        paths: a list of file paths (str or ``os.PathLike``); order matters.
            The list is used as given: never sorted, never deduplicated (a
            path listed twice is read twice).
        rank: this process's rank among ``world_size`` distributed processes
            (0 <= rank < world_size).
        world_size: how many distributed processes read the same list.

    Iterating yields each line of the files as a ``str`` with its line ending
    (``"\\n"``, ``"\\r\\n"`` or ``"\\r"``) removed; a last line without a
    trailing newline is still yielded, and an empty file yields nothing.
    The other line boundaries of ``str.splitlines`` (``"\\v"``, ``"\\f"``,
    ``"\\x1c"``, ``"\\x1d"``, ``"\\x1e"``, ``"\\x85"``, ``"\\u2028"``,
    ``"\\u2029"``) either all end a line too (as ``str.splitlines`` has it)
    or all stay inside their line (as ``open()`` reads text): either is
    correct. Files are UTF-8 text, read line by line (never whole into
    memory), in the order of ``paths``, lines in file order. A byte order
    mark (``"\\ufeff"``) at the start of a file may be kept at the start of
    its first line (``encoding="utf-8"``) or removed
    (``encoding="utf-8-sig"``): either is correct.

    Sharding: with k DataLoader workers per rank (k = 1 and worker id 0 when
    there are no workers) there are ``world_size * k`` readers. Reader
    ``rank * k + worker_id`` reads the files ``paths[reader::world_size * k]``
    and no others. Across all ranks and workers every line is therefore
    yielded exactly once (once per listing, for a path listed twice). Worker
    information is read in ``__iter__`` (it is None in ``__init__``), and
    every ``iter()`` starts afresh from the first of this reader's files.
    """

    def __init__(self, paths, rank=0, world_size=1):
        self.paths = list(paths)
        self.rank = rank
        self.world_size = world_size

    def __iter__(self):
        info = get_worker_info()
        k, wid = (1, 0) if info is None else (info.num_workers, info.id)
        readers = self.world_size * k
        reader = self.rank * k + wid
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.endswith("\n"):
                        line = line[:-1]
                    yield line
