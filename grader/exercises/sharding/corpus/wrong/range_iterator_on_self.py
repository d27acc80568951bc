# WRONG: ShardedRange keeps its position on self (__iter__ returns self), so a second iter() yields nothing.
# breaks: sharding.range_every_iter_starts_afresh
# witness of: test_sharding.py::test_range_without_workers_yields_0_to_n_minus_1
# WHOLE: the mistake adds ShardedRange.__next__, a member outside the solution regions
"""Exercise 2 (sharding): iterable datasets that yield each item exactly once.

Every DataLoader worker receives its own copy of an ``IterableDataset`` and
iterates it from the start, so without sharding k workers yield the stream k
times. The fix is to ask ``torch.utils.data.get_worker_info()`` *inside*
``__iter__`` (it returns None in the main process and in ``__init__``) which
worker is running, and keep only that worker's share.

Lab text: "IterableDataset duplication" and experiment (a) of the lab runner.
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
    workers then yield nothing). Which worker runs is read in ``__iter__``,
    never in ``__init__``, and every call to ``iter()`` starts afresh.
    """

    def __init__(self, n):
        self.n = n

    def __next__(self):
        return next(self._it)

    def __iter__(self):
        if not hasattr(self, "_it"):
            info = get_worker_info()
            self._it = iter(range(self.n) if info is None else range(info.id, self.n, info.num_workers))
        return self


class ShardedFiles(IterableDataset):
    """The lines of several text files, with whole files as shards.

    Args:
        paths: a list of file paths (str or ``os.PathLike``); order matters.
        rank: this process's rank among ``world_size`` distributed processes
            (0 <= rank < world_size).
        world_size: how many distributed processes read the same list.

    Iterating yields each line of the files as a ``str`` with its line ending
    (``"\\n"``, ``"\\r\\n"`` or ``"\\r"``) removed; a last line without a
    trailing newline is still yielded, and an empty file yields nothing. Files
    are UTF-8 text, read line by line (never whole into memory), in the order
    of ``paths``, lines in file order.

    Sharding: with k DataLoader workers per rank (k = 1 and worker id 0 when
    there are no workers) there are ``world_size * k`` readers. Reader
    ``rank * k + worker_id`` reads the files ``paths[reader::world_size * k]``
    and no others. Across all ranks and workers every line is therefore
    yielded exactly once. Worker information is read in ``__iter__`` (it is
    None in ``__init__``), and every ``iter()`` starts afresh from the first
    of this reader's files.
    """

    def __init__(self, paths, rank=0, world_size=1):
        self.paths = list(paths)
        self.rank = rank
        self.world_size = world_size

    def __iter__(self):
        info = get_worker_info()
        worker_id, num_workers = (0, 1) if info is None else (info.id, info.num_workers)
        readers = self.world_size * num_workers
        reader = self.rank * num_workers + worker_id
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as lines:
                for line in lines:
                    yield line.removesuffix("\n")
