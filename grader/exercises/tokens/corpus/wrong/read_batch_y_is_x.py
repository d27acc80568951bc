# WRONG: read_batch returns the first block_size columns of the gathered block as y too, so y is not shifted (ds[i] is right).
# breaks: tokens.read_batch_equals_the_stacked_per_item_reads
# witness of: test_tokens.py::test_read_batch_stacks_the_per_item_windows

### BEGIN SOLUTION TokenWindows.read_batch
        if not indices:  # without touching the file: an empty file cannot even be mapped
            empty = torch.empty((0, self.block_size), dtype=torch.int64)
            return empty, empty.clone()
        offsets = self._starts(indices)[:, None] + np.arange(self.block_size + 1)
        windows = torch.from_numpy(self._memmap()[offsets].astype(np.int64))
        return windows[:, :-1], windows[:, :-1].clone()
### END SOLUTION

### BEGIN SOLUTION TokenWindows.__getitems__
        if not indices:
            return []
        offsets = self._starts(indices)[:, None] + np.arange(self.block_size + 1)
        windows = torch.from_numpy(self._memmap()[offsets].astype(np.int64))
        return [(w[:-1], w[1:]) for w in windows]
### END SOLUTION
