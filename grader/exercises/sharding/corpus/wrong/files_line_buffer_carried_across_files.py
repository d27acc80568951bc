# WRONG: ShardedFiles keeps an unfinished line in a buffer that outlives its file, so a file without a final newline has its last line joined to the next file's first ('x0\nx1' then 'y0\n' gives 'x0', 'x1y0').
# breaks: sharding.files_last_line_and_empty_file
# witness of: test_sharding.py::test_files_without_workers_yield_every_line_in_order

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        worker_id, num_workers = (0, 1) if info is None else (info.id, info.num_workers)
        readers = self.world_size * num_workers
        reader = self.rank * num_workers + worker_id
        unfinished = ""
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as lines:
                for line in lines:
                    if line.endswith("\n"):
                        yield unfinished + line[:-1]
                        unfinished = ""
                    else:
                        unfinished += line
        if unfinished:
            yield unfinished
### END SOLUTION
