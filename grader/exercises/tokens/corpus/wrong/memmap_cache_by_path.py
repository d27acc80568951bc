# WRONG: The memmap is cached in a module-level dict keyed by path only, so a second dataset over the same file with another dtype reuses the first one's memmap.
# breaks: tokens.windows_are_x_and_y_shifted_by_one
# witness of: test_tokens.py::test_a_path_read_again_as_another_dtype

_MEMMAPS = {}  # path -> open memmap, per process

### BEGIN SOLUTION TokenWindows
    def _memmap(self):
        if self._tokens is None:  # one memmap per file, shared by every dataset over it: one page cache
            if self.path not in _MEMMAPS:
                _MEMMAPS[self.path] = np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.n_tokens,))
            self._tokens = _MEMMAPS[self.path]
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
        try:
            array = np.array(indices, dtype=np.int64)
        except OverflowError:  # an int beyond int64 is out of range whatever the length
            raise IndexError(f"a window index of {indices!r} is out of range for {n} windows") from None
        outside = (array < -n) | (array >= n)
        if outside.any():
            raise IndexError(f"window index {array[outside][0]} out of range for {n} windows")
        return (array % max(n, 1)) * self.stride

### END SOLUTION
