# WRONG: opens the memmap lazily but caches it without __getstate__, so after first use pickling carries every token.
# breaks: tokens.pickles_small_after_init_and_use
# witness of: test_tokens.py::test_pickles_small_after_use; lab d: pickles small after use

### BEGIN SOLUTION TokenWindows.__init__
        if block_size < 1:
            raise ValueError(f"block_size must be at least 1, got {block_size}")
        if stride < 1:
            raise ValueError(f"stride must be at least 1, got {stride}")
        size = os.path.getsize(self.path)
        if size % self.dtype.itemsize:
            raise ValueError(f"{self.path} holds {size} bytes, not a whole number of {self.dtype.name} tokens")
        self.n_tokens = size // self.dtype.itemsize
        self._tokens = None
### END SOLUTION

### BEGIN SOLUTION TokenWindows

    def _memmap(self):
        if self._tokens is None:
            self._tokens = np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.n_tokens,))
        return self._tokens


    def _start(self, i):
        i, n = operator.index(i), len(self)
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
        starts = np.array([self._start(i) for i in indices], dtype=np.int64)
        offsets = starts[:, None] + np.arange(self.block_size + 1)
        windows = torch.from_numpy(self._memmap()[offsets].astype(np.int64))
        return [(w[:-1], w[1:]) for w in windows]
### END SOLUTION
