# WRONG: returns each pair as a list [x, y] instead of a tuple; ds.__getitems__([0])[0] is a list, which is not equal to ds[0] = (x, y) as the per-item read is.
# breaks: tokens.getitems_returns_the_per_item_windows
# witness of: test_tokens.py::test_getitems_gives_tuples_equal_to_the_per_item_reads

### BEGIN SOLUTION TokenWindows.__init__
        if block_size < 1:
            raise ValueError(f"block_size must be >= 1, got {block_size}")
        if stride < 1:
            raise ValueError(f"stride must be >= 1, got {stride}")
        nbytes = os.path.getsize(self.path)
        if nbytes % self.dtype.itemsize:
            raise ValueError(f"{self.path}: {nbytes} bytes is not a whole number of {self.dtype} tokens")
        self.n_tokens = nbytes // self.dtype.itemsize
        self._tokens = None
### END SOLUTION

### BEGIN SOLUTION TokenWindows

    def _memmap(self):
        """The token file as a read-only memmap, opened on first use."""
        if self._tokens is None:
            self._tokens = np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.n_tokens,))
        return self._tokens

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_tokens"] = None
        return state

    def _check(self, i):
        """Normalise a window index, raising IndexError when it is out of range."""
        i = operator.index(i)
        n = len(self)
        if i < 0:
            i += n
        if not 0 <= i < n:
            raise IndexError(f"window index out of range for {n} windows")
        return i
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitem__
        i = self._check(i)
        start = i * self.stride
        window = torch.from_numpy(self._memmap()[start:start + self.block_size + 1].astype(np.int64))
        return window[:-1], window[1:]
### END SOLUTION

### BEGIN SOLUTION TokenWindows.read_batch
        rows = [self._check(i) for i in indices]
        T = self.block_size
        if not rows:
            return torch.empty((0, T), dtype=torch.long), torch.empty((0, T), dtype=torch.long)
        starts = np.asarray(rows, dtype=np.int64) * self.stride
        block = self._memmap()[starts[:, None] + np.arange(T + 1)]
        block = torch.from_numpy(block.astype(np.int64))
        return block[:, :-1], block[:, 1:]
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitems__
        x, y = self.read_batch(indices)
        return [[row_x, row_y] for row_x, row_y in zip(x, y)]
### END SOLUTION
