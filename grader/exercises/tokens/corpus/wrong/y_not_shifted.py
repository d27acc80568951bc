# WRONG: returns y equal to x instead of x shifted by one token.
# breaks: tokens.windows_are_x_and_y_shifted_by_one
# witness of: test_tokens.py::test_a_window_is_x_and_y_shifted_by_one; test_tokens.py::test_pin_memory_loader_gives_the_documented_batches

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

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_tokens"] = None
        return state

    def _start(self, i):
        i, n = operator.index(i), len(self)
        if not -n <= i < n:
            raise IndexError(f"window index {i} out of range for {n} windows")
        return (i % n) * self.stride
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitem__
        start = self._start(i)
        window = torch.from_numpy(self._memmap()[start : start + self.block_size].astype(np.int64))
        return window, window.clone()
### END SOLUTION

### BEGIN SOLUTION TokenWindows.read_batch
        if len(indices) == 0:
            return torch.empty((0, self.block_size), dtype=torch.int64), torch.empty((0, self.block_size), dtype=torch.int64)
        starts = np.array([self._start(i) for i in indices], dtype=np.int64)
        offsets = starts[:, None] + np.arange(self.block_size)
        windows = torch.from_numpy(self._memmap()[offsets].astype(np.int64))
        return windows, windows.clone()
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitems__
        if len(indices) == 0:
            return []  # nothing to read; an empty file cannot even be mapped
        starts = np.array([self._start(i) for i in indices], dtype=np.int64)
        offsets = starts[:, None] + np.arange(self.block_size)
        windows = torch.from_numpy(self._memmap()[offsets].astype(np.int64))
        return [(w, w.clone()) for w in windows]
### END SOLUTION
