# WRONG: read_batch guards the memmap with a threading.Lock made on first use and kept on the dataset, which cannot be pickled: spawn and forkserver workers of a dataset already read in the parent never start. For the same reason the dataset no longer pickles after read_batch.
# breaks: tokens.pickles_small_after_init_and_use, tokens.read_batch_in_real_workers
# witness of: test_tokens.py::test_whole_batches_in_worker_processes
import threading

### BEGIN SOLUTION TokenWindows.read_batch
        if not indices:
            empty = torch.empty((0, self.block_size), dtype=torch.int64)
            return empty, empty.clone()
        if getattr(self, "_lock", None) is None:
            self._lock = threading.Lock()
        with self._lock:
            offsets = self._starts(indices)[:, None] + np.arange(self.block_size + 1)
            windows = torch.from_numpy(self._memmap()[offsets].astype(np.int64))
        return windows[:, :-1], windows[:, 1:]
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitems__
        if not indices:
            return []
        offsets = self._starts(indices)[:, None] + np.arange(self.block_size + 1)
        windows = torch.from_numpy(self._memmap()[offsets].astype(np.int64))
        return [(w[:-1], w[1:]) for w in windows]
### END SOLUTION
