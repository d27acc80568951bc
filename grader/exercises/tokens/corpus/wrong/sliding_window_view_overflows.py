# WRONG: views the memmap as all its windows with np.lib.stride_tricks.sliding_window_view and lets NumPy's own indexing pick window i, which raises OverflowError, not IndexError, for an int no int64 holds (ds[2**63], read_batch([2**63])).
# breaks: tokens.negative_and_out_of_range_indices, tokens.getitems_rejects_an_index_out_of_range, tokens.read_batch_rejects_an_index_out_of_range
# witness of: test_tokens.py::test_negative_and_out_of_range_indices

### BEGIN SOLUTION TokenWindows

    def _memmap(self):
        if self._tokens is None:
            self._tokens = np.memmap(self.path, dtype=self.dtype, mode="r", shape=(self.n_tokens,))
        return self._tokens

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_tokens"] = None  # never pickle the memmap: it would carry every token
        return state

    def _windows(self):
        """Every window as a row of a (len, block_size + 1) view of the memmap: nothing is read until rows are indexed."""
        if len(self) == 0:
            return np.empty((0, self.block_size + 1), dtype=self.dtype)
        view = np.lib.stride_tricks.sliding_window_view(self._memmap(), self.block_size + 1)
        return view[:: self.stride][: len(self)]
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitem__
        window = self._windows()[operator.index(i)]  # sequence indexing: negatives count from the end, IndexError
        window = torch.from_numpy(window.astype(np.int64))
        return window[:-1], window[1:]
### END SOLUTION

### BEGIN SOLUTION TokenWindows.read_batch
        rows = self._windows()[np.asarray(indices, dtype=np.intp).reshape(-1)]  # one gather; IndexError as ds[i]
        windows = torch.from_numpy(rows.astype(np.int64))
        return windows[:, :-1], windows[:, 1:]
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitems__
        rows = self._windows()[np.asarray(indices, dtype=np.intp).reshape(-1)]  # one gather; IndexError as ds[i]
        windows = torch.from_numpy(rows.astype(np.int64))
        return [(w[:-1], w[1:]) for w in windows]
### END SOLUTION
