# WRONG: read_batch keeps the memmap it gathers from in a second attribute (self._batch_source) that __getstate__ does not clear, so the dataset pickles its tokens after read_batch.
# breaks: tokens.pickles_small_after_init_and_use

### BEGIN SOLUTION TokenWindows.read_batch
        if not indices:  # without touching the file: an empty file cannot even be mapped
            empty = torch.empty((0, self.block_size), dtype=torch.int64)
            return empty, empty.clone()
        offsets = self._starts(indices)[:, None] + np.arange(self.block_size + 1)
        self._batch_source = self._memmap()  # kept for the next batch (and pickled with the dataset)
        windows = torch.from_numpy(self._batch_source[offsets].astype(np.int64))
        return windows[:, :-1], windows[:, 1:]
### END SOLUTION
