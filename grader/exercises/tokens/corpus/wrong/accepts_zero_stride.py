# WRONG: checks block_size < 1 but not stride < 1, so stride=0 is accepted (and every window starts at token 0).
# breaks: tokens.rejects_bad_sizes
# witness of: test_tokens.py::test_rejects_sizes_below_one

### BEGIN SOLUTION TokenWindows.__init__
        if block_size < 1:
            raise ValueError(f"block_size must be at least 1, got {block_size}")
        size = os.path.getsize(self.path)
        if size % self.dtype.itemsize:
            raise ValueError(
                f"{self.path} holds {size} bytes, not a whole number of "
                f"{self.dtype.name} tokens ({self.dtype.itemsize} bytes each)"
            )
        self.n_tokens = size // self.dtype.itemsize
        self._tokens = None  # the memmap, opened on first use in each process
### END SOLUTION

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
