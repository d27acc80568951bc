# WRONG: ShardedFiles reads each file whole and splits on '\n', yielding an extra '' after a final newline and one for an empty file.
# breaks: sharding.files_last_line_and_empty_file, sharding.files_read_line_by_line, sharding.files_remove_only_the_line_ending

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        worker_id, num_workers = (0, 1) if info is None else (info.id, info.num_workers)
        readers = self.world_size * num_workers
        reader = self.rank * num_workers + worker_id
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as f:
                yield from f.read().split("\n")
### END SOLUTION
