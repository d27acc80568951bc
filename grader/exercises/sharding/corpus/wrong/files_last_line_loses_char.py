# WRONG: removes the ending with line[:-1] unconditionally; a file 'a\nbc' yields ['a', 'b'] instead of ['a', 'bc'].
# breaks: sharding.files_last_line_and_empty_file

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        k, wid = (1, 0) if info is None else (info.num_workers, info.id)
        readers = self.world_size * k
        reader = self.rank * k + wid
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    line = line[:-1]
                    yield line
### END SOLUTION
