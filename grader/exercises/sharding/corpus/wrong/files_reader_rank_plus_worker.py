# WRONG: numbers the readers rank + worker_id instead of rank * k + worker_id; with world_size=2, k=2 and paths [a,b,c,d], rank 0 worker 1 and rank 1 worker 0 both read [b] and nobody reads d.
# breaks: sharding.files_readers_in_real_workers
# witness of: test_sharding.py::test_files_two_ranks_two_workers_each_line_exactly_once; test_sharding.py::test_files_readers_in_simulated_workers

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        k, wid = (1, 0) if info is None else (info.num_workers, info.id)
        readers = self.world_size * k
        reader = self.rank + wid
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.endswith("\n"):
                        line = line[:-1]
                    yield line
### END SOLUTION
