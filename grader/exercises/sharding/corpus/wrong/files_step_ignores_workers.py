# WRONG: keeps the reader index rank * k + worker_id but steps by world_size only; with world_size=1, k=2 and paths [b, c, d], worker 0 reads b, c, d and worker 1 reads c, d (c and d twice).
# breaks: sharding.files_readers_in_real_workers
# witness of: test_sharding.py::test_files_two_ranks_two_workers_each_line_exactly_once; test_sharding.py::test_files_readers_in_simulated_workers

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        k, wid = (1, 0) if info is None else (info.num_workers, info.id)
        readers = self.world_size * k
        reader = self.rank * k + wid
        for path in self.paths[reader::self.world_size]:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.endswith("\n"):
                        line = line[:-1]
                    yield line
### END SOLUTION
