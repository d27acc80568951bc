# WRONG: read_batch takes every index modulo len(ds) without checking it, so an index past the end wraps around instead of raising IndexError.
# breaks: tokens.read_batch_rejects_an_index_out_of_range
# witness of: test_tokens.py::test_read_batch_rejects_an_index_out_of_range

### BEGIN SOLUTION TokenWindows.read_batch
        if not indices:
            empty = torch.empty((0, self.block_size), dtype=torch.int64)
            return empty, empty.clone()
        starts = (np.array(indices, dtype=np.int64) % len(self)) * self.stride
        windows = torch.from_numpy(self._memmap()[starts[:, None] + np.arange(self.block_size + 1)].astype(np.int64))
        return windows[:, :-1], windows[:, 1:]
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitems__
        if not indices:
            return []
        offsets = self._starts(indices)[:, None] + np.arange(self.block_size + 1)
        windows = torch.from_numpy(self._memmap()[offsets].astype(np.int64))
        return [(w[:-1], w[1:]) for w in windows]
### END SOLUTION
