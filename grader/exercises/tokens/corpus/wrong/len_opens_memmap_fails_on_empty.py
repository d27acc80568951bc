# WRONG: counts the tokens in __len__ from the memmap (opening it) rather than from the file size; for an empty file len(ds) raises ValueError ('cannot mmap an empty file') instead of returning 0.
# breaks: tokens.len_counts_the_windows_that_fit, tokens.never_reads_the_file_whole
# witness of: test_tokens.py::test_len_of_an_empty_file_is_0

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

### BEGIN SOLUTION TokenWindows.__len__
        return max(0, (len(self._memmap()) - self.block_size - 1) // self.stride + 1)
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
        return list(zip(x, y))
### END SOLUTION
