# WRONG: ShardedFiles reads each file whole with f.read().splitlines() instead of line by line, so memory grows with the file.
# breaks: sharding.files_read_line_by_line
# witness of: test_sharding.py::test_files_read_line_by_line

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        worker_id, num_workers = (0, 1) if info is None else (info.id, info.num_workers)
        readers = self.world_size * num_workers
        reader = self.rank * num_workers + worker_id
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as f:
                yield from f.read().splitlines()
### END SOLUTION
