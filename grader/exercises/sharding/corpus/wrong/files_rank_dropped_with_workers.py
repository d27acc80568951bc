# WRONG: shards by rank without workers but only by worker id when there are workers; rank=1, world_size=2, k=2 over [a,b,c,d]: rank 0 and rank 1 both read [a, c] (worker 0) and [b, d] (worker 1), so every line is yielded twice.
# breaks: sharding.files_readers_in_real_workers
# witness of: test_sharding.py::test_files_two_ranks_two_workers_each_line_exactly_once; test_sharding.py::test_files_readers_in_simulated_workers

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        if info is None:
            readers, reader = self.world_size, self.rank
        else:
            readers, reader = info.num_workers, info.id
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.endswith("\n"):
                        line = line[:-1]
                    yield line
### END SOLUTION
