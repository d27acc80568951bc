# WRONG: opens the memmap in __init__ for a non-empty file (an empty one cannot be mapped) and leaves it out of the pickled state, so the pickles stay small but the file is mapped before tokens are first needed.
# breaks: tokens.never_reads_the_file_whole
# witness of: test_tokens.py::test_the_memmap_is_opened_on_first_use

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
        if self.n_tokens:
            self._tokens = np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.n_tokens,))
### END SOLUTION
