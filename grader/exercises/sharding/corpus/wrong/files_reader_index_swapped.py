# WRONG: ShardedFiles numbers the readers worker_id * world_size + rank instead of rank * k + worker_id.
# breaks: sharding.files_readers_in_real_workers
# witness of: test_sharding.py::test_files_two_ranks_two_workers_each_line_exactly_once; test_sharding.py::test_files_readers_in_simulated_workers

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        worker_id, num_workers = (0, 1) if info is None else (info.id, info.num_workers)
        readers = self.world_size * num_workers
        reader = worker_id * self.world_size + self.rank
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as lines:
                for line in lines:
                    yield line.removesuffix("\n")
### END SOLUTION
