# RIGHT: opens the memmap through functools.cached_property, drops it in __getstate__ and reopens it after a fork (pid check); len from n_tokens via ceil division; __getitems__ gathers with np.add.outer and zips the x and y columns.
import functools

### BEGIN SOLUTION TokenWindows.__init__
        if block_size < 1:
            raise ValueError(f"block_size must be at least 1, got {block_size}")
        if stride < 1:
            raise ValueError(f"stride must be at least 1, got {stride}")
        size = os.path.getsize(self.path)
        if size % self.dtype.itemsize:
            raise ValueError(f"{self.path} holds {size} bytes, not a whole number of {self.dtype.name} tokens")
        self.n_tokens = size // self.dtype.itemsize
        self._pid = os.getpid()
### END SOLUTION

### BEGIN SOLUTION TokenWindows

    @functools.cached_property
    def tokens(self):
        return np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.n_tokens,))

    def __getstate__(self):
        state = dict(self.__dict__)
        state.pop("tokens", None)  # cached_property stores its value in __dict__
        return state

    def _mapped(self):
        if self._pid != os.getpid():  # forked worker: map the file anew
            self.__dict__.pop("tokens", None)
            self._pid = os.getpid()
        return self.tokens

    def _window(self, start):
        return self._mapped()[start : start + self.block_size + 1]
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__len__
        spare = self.n_tokens - self.block_size - 1
        return 0 if spare < 0 else -(-(spare + 1) // self.stride)
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitem__
        n = len(self)
        index = operator.index(i)
        if index < -n or index >= n:
            raise IndexError(index)
        window = torch.from_numpy(self._window((index + n if index < 0 else index) * self.stride).astype(np.int64))
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
        n = len(self)
        starts = []
        for i in indices:
            index = operator.index(i)
            if index < -n or index >= n:
                raise IndexError(index)
            starts.append((index + n if index < 0 else index) * self.stride)
        offsets = np.add.outer(np.asarray(starts, dtype=np.intp), np.arange(self.block_size + 1))
        windows = torch.from_numpy(self._mapped()[offsets].astype(np.int64))
        return list(zip(windows[:, :-1], windows[:, 1:]))
### END SOLUTION
