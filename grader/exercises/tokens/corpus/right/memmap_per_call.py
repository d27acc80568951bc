# RIGHT: keeps no memmap at all: every __getitem__ opens a fresh np.memmap, so there is nothing to leave out of the pickle; __getitems__ opens one per batch.

### BEGIN SOLUTION TokenWindows.__init__
        if block_size < 1:
            raise ValueError(f"block_size must be at least 1, got {block_size}")
        if stride < 1:
            raise ValueError(f"stride must be at least 1, got {stride}")
        size = os.path.getsize(self.path)
        if size % self.dtype.itemsize:
            raise ValueError(f"{self.path} holds {size} bytes, not a whole number of {self.dtype.name} tokens")
        self.n_tokens = size // self.dtype.itemsize
### END SOLUTION

### BEGIN SOLUTION TokenWindows

    def _start(self, i):
        i, n = operator.index(i), len(self)
        if not -n <= i < n:
            raise IndexError(f"window index {i} out of range for {n} windows")
        return (i % n) * self.stride
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitem__
        start = self._start(i)
        tokens = np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.n_tokens,))
        window = torch.tensor(tokens[start : start + self.block_size + 1], dtype=torch.int64)
        del tokens
        return window[:-1], window[1:]
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
        starts = np.array([self._start(i) for i in indices], dtype=np.intp).reshape(-1, 1)
        tokens = np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.n_tokens,))
        block = torch.tensor(tokens[starts + np.arange(self.block_size + 1)], dtype=torch.int64)
        del tokens
        return [(row[:-1], row[1:]) for row in block]
### END SOLUTION
