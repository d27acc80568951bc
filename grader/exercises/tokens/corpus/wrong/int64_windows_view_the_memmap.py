# WRONG: widens with astype(np.int64, copy=False), so for an int64 file ds[i]'s x and y are views of the read-only memmap; rewriting the file after x, y = ds[0] changes x, and x.add_(1) faults.
# breaks: tokens.windows_are_int64_tensors_of_length_t
# witness of: test_tokens.py::test_windows_of_an_int64_file_are_their_own_tensors

### BEGIN SOLUTION TokenWindows.__getitem__
        start = self._start(i)
        window = self._memmap()[start : start + self.block_size + 1]
        window = torch.from_numpy(window.astype(np.int64, copy=False))  # no copy when the file is int64 already
        return window[:-1], window[1:]
### END SOLUTION
