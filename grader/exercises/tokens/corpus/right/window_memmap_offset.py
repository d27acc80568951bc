# RIGHT: maps only the window's T + 1 tokens per call (np.memmap with offset= and shape=) and indexes through range(len(self))[i]; __getitems__ maps only the span from the batch's first to last window and gathers from it.

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

### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitem__
        start = range(0, len(self) * self.stride, self.stride)[i]  # sequence indexing: negatives, IndexError
        view = np.memmap(self.path, dtype=self.dtype, mode="r", offset=start * self.dtype.itemsize, shape=(self.block_size + 1,))
        x = torch.from_numpy(view[:-1].astype(np.int64))
        y = torch.from_numpy(view[1:].astype(np.int64))
        return x, y
### END SOLUTION

### BEGIN SOLUTION TokenWindows.read_batch
        if len(indices) == 0:
            return torch.empty((0, self.block_size), dtype=torch.int64), torch.empty((0, self.block_size), dtype=torch.int64)
        pairs = self.__getitems__(indices)
        return torch.stack([x for x, _ in pairs]), torch.stack([y for _, y in pairs])
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitems__
        windows = range(0, len(self) * self.stride, self.stride)
        starts = np.array([windows[i] for i in indices], dtype=np.int64)  # sequence indexing: negatives, IndexError
        if not len(starts):
            return []
        first = int(starts.min())
        span = int(starts.max()) - first + self.block_size + 1
        view = np.memmap(self.path, dtype=self.dtype, mode="r", offset=first * self.dtype.itemsize, shape=(span,))
        block = view[(starts - first)[:, None] + np.arange(self.block_size + 1)].astype(np.int64)
        return [(torch.from_numpy(row[:-1]), torch.from_numpy(row[1:])) for row in block]
### END SOLUTION
