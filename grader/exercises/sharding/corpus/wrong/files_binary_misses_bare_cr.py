# WRONG: ShardedFiles reads the files in binary and splits on b'\n' only, so lines ending in a bare '\r' are not split.
# breaks: sharding.files_remove_only_the_line_ending

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        worker_id, num_workers = (0, 1) if info is None else (info.id, info.num_workers)
        readers = self.world_size * num_workers
        reader = self.rank * num_workers + worker_id
        for path in self.paths[reader::readers]:
            with open(path, "rb") as raw:
                for line in raw:
                    yield line.decode("utf-8").rstrip("\r\n")
### END SOLUTION
