# WRONG: read_batch stacks the per-item reads (torch.stack of ds[i] for each index), one read of the memmap per window instead of one gather; __getitems__ goes through it.
# breaks: tokens.read_batch_reads_a_batch_in_one_gather
# witness of: test_tokens.py::test_read_batch_gathers_the_batch_in_one_read; lab d: read_batch reads the memmap once per batch

### BEGIN SOLUTION TokenWindows.read_batch
        if not indices:
            empty = torch.empty((0, self.block_size), dtype=torch.int64)
            return empty, empty.clone()
        pairs = [self[i] for i in indices]
        return torch.stack([x for x, _ in pairs]), torch.stack([y for _, y in pairs])
### END SOLUTION
