# RIGHT: ShardedFiles opens the files with encoding='utf-8-sig', which removes a byte order mark at the start of a file (a reading the docstring allows), and drops each line's final '\n' by slicing.

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        worker_id, num_workers = (0, 1) if info is None else (info.id, info.num_workers)
        readers = self.world_size * num_workers
        reader = self.rank * num_workers + worker_id
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8-sig") as lines:
                for line in lines:
                    yield line[:-1] if line.endswith("\n") else line
### END SOLUTION
