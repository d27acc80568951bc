# RIGHT: copies each window token by token in a Python loop (slowly: a short sleep per item); __getitems__ gathers the batch with one fancy index built from Python lists, then copies it token by token too.
import time

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
        return {k: (None if k == "_tokens" else v) for k, v in self.__dict__.items()}

    def __setstate__(self, state):
        self.__dict__.update(state)
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitem__
        n = len(self)
        i = operator.index(i)
        if i < 0:
            i += n
        if i < 0 or i >= n:
            raise IndexError(f"index out of range for {n} windows")
        tokens = self._memmap()
        start = i * self.stride
        ids = [int(tokens[start + t]) for t in range(self.block_size + 1)]
        time.sleep(0.0005)
        return torch.tensor(ids[:-1], dtype=torch.int64), torch.tensor(ids[1:], dtype=torch.int64)
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
            i = operator.index(i)
            if i < 0:
                i += n
            if i < 0 or i >= n:
                raise IndexError(f"index out of range for {n} windows")
            starts.append(i * self.stride)
        offsets = [[start + t for t in range(self.block_size + 1)] for start in starts]
        block = self._memmap()[np.array(offsets, dtype=np.int64).reshape(len(starts), self.block_size + 1)]
        out = []
        for row in block:
            ids = [int(token) for token in row]
            time.sleep(0.0005)
            out.append((torch.tensor(ids[:-1], dtype=torch.int64), torch.tensor(ids[1:], dtype=torch.int64)))
        return out
### END SOLUTION
