# WRONG: ShardedFiles skips empty lines, which are lines of the file too.
# breaks: sharding.files_remove_only_the_line_ending

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        worker_id, num_workers = (0, 1) if info is None else (info.id, info.num_workers)
        readers = self.world_size * num_workers
        reader = self.rank * num_workers + worker_id
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as lines:
                for line in lines:
                    line = line.removesuffix("\n")
                    if line:
                        yield line
### END SOLUTION
