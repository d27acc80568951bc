# WRONG: keeps every window it reads in a dict on the dataset and hands the same x and y out again, so a write into a returned window (masking, say) shows in the next read of that index, and the pickle grows with every window read.
# breaks: tokens.pickles_small_after_init_and_use, tokens.windows_are_int64_tensors_of_length_t

### BEGIN SOLUTION TokenWindows.__getitem__
        start = self._start(i)
        cache = self.__dict__.setdefault("_cache", {})
        if start not in cache:
            window = self._memmap()[start : start + self.block_size + 1]
            window = torch.from_numpy(window.astype(np.int64))
            cache[start] = (window[:-1], window[1:])
        return cache[start]
### END SOLUTION
