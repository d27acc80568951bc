# WRONG: __getitems__ reduces every index modulo len(ds) without checking it, so an index out of range wraps around to a valid window instead of raising IndexError.
# breaks: tokens.getitems_rejects_an_index_out_of_range
# witness of: test_tokens.py::test_getitems_rejects_an_index_out_of_range

### BEGIN SOLUTION TokenWindows

    def _memmap(self):
        if self._tokens is None:
            self._tokens = np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.n_tokens,))
        return self._tokens

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_tokens"] = None  # never pickle the memmap: it would carry every token
        return state

    def _start(self, i):
        """Token offset of window i, after checking i as a sequence index."""
        i, n = operator.index(i), len(self)  # operator.index rejects floats and other non-ints
        if not -n <= i < n:
            raise IndexError(f"window index {i} out of range for {n} windows")
        return (i % n) * self.stride
### END SOLUTION

### BEGIN SOLUTION TokenWindows.read_batch
        if len(indices) == 0:
            return torch.empty((0, self.block_size), dtype=torch.int64), torch.empty((0, self.block_size), dtype=torch.int64)
        starts = np.array([self._start(i) for i in indices], dtype=np.int64)
        offsets = starts[:, None] + np.arange(self.block_size + 1)
        windows = torch.from_numpy(self._memmap()[offsets].astype(np.int64))
        return windows[:, :-1], windows[:, 1:]
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitems__
        if len(indices) == 0:
            return []  # nothing to read; an empty file cannot even be mapped
        starts = np.asarray(indices, dtype=np.int64) % len(self) * self.stride
        offsets = starts[:, None] + np.arange(self.block_size + 1)
        windows = torch.from_numpy(self._memmap()[offsets].astype(np.int64))
        return [(w[:-1], w[1:]) for w in windows]
### END SOLUTION
