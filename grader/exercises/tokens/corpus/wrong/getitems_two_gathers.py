# WRONG: gathers x and y with two fancy indexes (two reads of the memmap per batch) instead of one (B, T + 1) block; read_batch(list(range(16))) indexes the memmap twice, and the docstring says once.
# breaks: tokens.read_batch_reads_a_batch_in_one_gather

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
        pairs = self.__getitems__(indices)
        return torch.stack([x for x, _ in pairs]), torch.stack([y for _, y in pairs])
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitems__
        if len(indices) == 0:
            return []  # nothing to read; an empty file cannot even be mapped
        n = len(self)
        try:
            index = np.asarray(indices, dtype=np.int64).reshape(-1)
        except OverflowError:  # an int beyond int64 is out of range whatever the length
            raise IndexError(f"a window index in {list(indices)} is out of range for {n} windows") from None
        if ((index < -n) | (index >= n)).any():
            raise IndexError(f"a window index in {list(indices)} is out of range for {n} windows")
        starts = np.where(index < 0, index + n, index) * self.stride
        columns = np.arange(self.block_size)
        tokens = self._memmap()
        xs = torch.from_numpy(tokens[starts[:, None] + columns].astype(np.int64))
        ys = torch.from_numpy(tokens[starts[:, None] + columns + 1].astype(np.int64))
        return [(x, y) for x, y in zip(xs, ys)]
### END SOLUTION
