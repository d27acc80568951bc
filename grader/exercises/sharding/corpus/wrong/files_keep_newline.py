# WRONG: ShardedFiles yields the lines with their trailing newline still attached.
# breaks: sharding.files_remove_only_the_line_ending
# witness of: test_sharding.py::test_files_without_workers_yield_every_line_in_order; test_sharding.py::test_files_bom_and_other_line_boundaries_either_way

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        worker_id, num_workers = (0, 1) if info is None else (info.id, info.num_workers)
        readers = self.world_size * num_workers
        reader = self.rank * num_workers + worker_id
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as lines:
                yield from lines
### END SOLUTION
