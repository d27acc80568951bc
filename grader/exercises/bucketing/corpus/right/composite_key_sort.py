# RIGHT: sorts all pools in one argsort on the key pool_number * (max_length + 1) + length, then slices the concatenation into batches.

### BEGIN SOLUTION BucketBatchSampler.__iter__
        if self.generator is not None:
            generator = self.generator
        else:
            generator = torch.Generator().manual_seed(int(torch.randint(-2**63, 2**63 - 1, ()).item()))
        n = self.lengths.numel()
        order = torch.randperm(n, generator=generator)
        pool_number = torch.arange(n) // (self.pool_batches * self.batch_size)
        key = pool_number * (int(self.lengths.max()) + 1 if n else 1) + self.lengths[order]
        order = order[torch.sort(key).indices]  # unstable sort: ties in any order are allowed
        full = n // self.batch_size * self.batch_size  # every pool but the last is a multiple of batch_size
        batches = list(order[:full].view(-1, self.batch_size)) if full else []
        if full < n and not self.drop_last:
            batches.append(order[full:])
        for b in torch.randperm(len(batches), generator=generator):
            yield batches[b].tolist()
### END SOLUTION
