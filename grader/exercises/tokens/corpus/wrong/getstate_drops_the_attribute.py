# WRONG: __getstate__ deletes the memmap attribute instead of setting it to None, so an unpickled copy (a spawn or forkserver worker's) raises AttributeError.
# breaks: tokens.read_batch_in_real_workers, tokens.same_batches_in_real_workers
# witness of: test_tokens.py::test_same_batches_in_worker_processes

### BEGIN SOLUTION TokenWindows

    def _memmap(self):
        if self._tokens is None:
            self._tokens = np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.n_tokens,))
        return self._tokens

    def __getstate__(self):
        state = self.__dict__.copy()
        del state["_tokens"]  # never pickle the memmap (but an unpickled copy then has no _tokens at all)
        return state

    def _start(self, i):
        """Token offset of window i, after checking i as a sequence index."""
        i, n = operator.index(i), len(self)  # operator.index rejects floats and other non-ints
        if not -n <= i < n:
            raise IndexError(f"window index {i} out of range for {n} windows")
        return (i % n) * self.stride
### END SOLUTION

### BEGIN SOLUTION TokenWindows.read_batch
        if not indices:
            return torch.empty((0, self.block_size), dtype=torch.int64), torch.empty((0, self.block_size), dtype=torch.int64)
        starts = np.array([self._start(i) for i in indices], dtype=np.int64)
        offsets = starts[:, None] + np.arange(self.block_size + 1)
        windows = torch.from_numpy(self._memmap()[offsets].astype(np.int64))
        return windows[:, :-1], windows[:, 1:]
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitems__
        if not indices:
            return []  # without touching the file: an empty file cannot even be mapped
        starts = np.array([self._start(i) for i in indices], dtype=np.int64)
        offsets = starts[:, None] + np.arange(self.block_size + 1)
        windows = torch.from_numpy(self._memmap()[offsets].astype(np.int64))
        return [(w[:-1], w[1:]) for w in windows]
### END SOLUTION
