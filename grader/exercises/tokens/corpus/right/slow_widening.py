# RIGHT: read_batch gathers the batch in one fancy index but widens it to int64 token by token in a Python loop (a right answer, and a slow one: the throughput figure ranks it below the reference).

### BEGIN SOLUTION TokenWindows.read_batch
        if not indices:  # without touching the file: an empty file cannot even be mapped
            empty = torch.empty((0, self.block_size), dtype=torch.int64)
            return empty, empty.clone()
        offsets = self._starts(indices)[:, None] + np.arange(self.block_size + 1)
        block = self._memmap()[offsets]  # the one gather, still uint16
        windows = torch.empty(block.shape, dtype=torch.int64)
        for row, tokens in enumerate(block.tolist()):  # widened token by token in Python: right, and slow
            for column, token in enumerate(tokens):
                windows[row, column] = token
        return windows[:, :-1], windows[:, 1:]
### END SOLUTION
