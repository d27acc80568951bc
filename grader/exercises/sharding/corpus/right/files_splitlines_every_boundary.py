# RIGHT: ShardedFiles reads each physical line with newline='' and splits it with str.splitlines, so \v, \f, \x1c-\x1e, \x85, \u2028 and \u2029 end lines too (a reading the docstring allows).

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        worker_id, num_workers = (0, 1) if info is None else (info.id, info.num_workers)
        readers = self.world_size * num_workers
        reader = self.rank * num_workers + worker_id
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8", newline="") as f:  # split at "\n", "\r\n" and "\r", nothing translated
                for physical in f:
                    yield from physical.splitlines()
### END SOLUTION
