# RIGHT: views the memmap as all its windows with np.lib.stride_tricks.sliding_window_view (no copy) and lets NumPy's own indexing pick window i, negatives included, after checking each index as a sequence index (NumPy raises OverflowError, not IndexError, beyond int64).

### BEGIN SOLUTION TokenWindows

    def _memmap(self):
        if self._tokens is None:
            self._tokens = np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.n_tokens,))
        return self._tokens

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_tokens"] = None  # never pickle the memmap: it would carry every token
        return state

    def _checked(self, indices):
        """``indices`` as an intp array, IndexError for any outside -len <= i < len (ints beyond int64 included)."""
        n = len(self)
        if any(not -n <= operator.index(i) < n for i in indices):
            raise IndexError(f"a window index of {list(indices)} is out of range for {n} windows")
        return np.asarray(indices, dtype=np.intp).reshape(-1)

    def _windows(self):
        """Every window as a row of a (len, block_size + 1) view of the memmap: nothing is read until rows are indexed."""
        if len(self) == 0:
            return np.empty((0, self.block_size + 1), dtype=self.dtype)
        view = np.lib.stride_tricks.sliding_window_view(self._memmap(), self.block_size + 1)
        return view[:: self.stride][: len(self)]
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitem__
        window = self._windows()[self._checked([i])[0]]  # sequence indexing: negatives count from the end
        window = torch.from_numpy(window.astype(np.int64))
        return window[:-1], window[1:]
### END SOLUTION

### BEGIN SOLUTION TokenWindows.read_batch
        rows = self._windows()[self._checked(indices)]  # one gather
        windows = torch.from_numpy(rows.astype(np.int64))
        return windows[:, :-1], windows[:, 1:]
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitems__
        rows = self._windows()[self._checked(indices)]  # one gather
        windows = torch.from_numpy(rows.astype(np.int64))
        return [(w[:-1], w[1:]) for w in windows]
### END SOLUTION
