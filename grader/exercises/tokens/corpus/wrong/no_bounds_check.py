# WRONG: does not check the index, so i >= len(ds) returns a short or empty window and negative i slices from the end of the file. __getitems__ and read_batch use the same unchecked offsets: -len - 1 gathers a wrapped window, and a negative index gathers other tokens than its own ds[i] slices.
# breaks: tokens.getitems_rejects_an_index_out_of_range, tokens.getitems_returns_the_per_item_windows, tokens.negative_and_out_of_range_indices, tokens.read_batch_rejects_an_index_out_of_range

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
        return i * self.stride
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
