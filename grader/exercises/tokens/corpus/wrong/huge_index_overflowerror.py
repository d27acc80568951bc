# WRONG: The batch index check converts indices to int64 without catching OverflowError, so an index beyond int64 raises OverflowError instead of IndexError.
# breaks: tokens.getitems_rejects_an_index_out_of_range, tokens.read_batch_rejects_an_index_out_of_range
# witness of: test_tokens.py::test_read_batch_rejects_an_index_out_of_range; test_tokens.py::test_getitems_rejects_an_index_out_of_range

### BEGIN SOLUTION TokenWindows
    def _memmap(self):
        if self._tokens is None:
            self._tokens = np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.n_tokens,))
        return self._tokens

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_tokens"] = None  # never pickle the memmap: it would carry every token
        return state

    def _start(self, i):
        """Token offset of window i, after checking i as a sequence index."""
        i, n = operator.index(i), len(self)  # operator.index rejects floats and other non-ints
        if not -n <= i < n:
            raise IndexError(f"window index {i} out of range for {n} windows")
        return (i % n) * self.stride

    def _starts(self, indices):
        """Token offsets of the windows ``indices``, checked as sequence indices in one NumPy step (a loop of
        ``_start`` calls would cost more than the gather itself)."""
        n = len(self)
        array = np.array(indices, dtype=np.int64)
        outside = (array < -n) | (array >= n)
        if outside.any():
            raise IndexError(f"window index {array[outside][0]} out of range for {n} windows")
        return (array % max(n, 1)) * self.stride

### END SOLUTION
