# WRONG: __reduce__ rebuilds the dataset from (path, block_size, stride) and forgets dtype, so a spawn/forkserver worker (or any unpickled copy) reads the file as uint16.
# breaks: tokens.same_batches_in_real_workers
# witness of: test_tokens.py::test_a_pickled_copy_reads_what_the_dataset_reads

### BEGIN SOLUTION TokenWindows
    def _memmap(self):
        if self._tokens is None:
            self._tokens = np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.n_tokens,))
        return self._tokens

    def __reduce__(self):
        # rebuild from the constructor arguments: never pickle the memmap
        return (type(self), (self.path, self.block_size, self.stride))

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
