# WRONG: ShardedFiles shards only over ranks (paths[rank::world_size]), so each DataLoader worker of a rank reads the same files.
# breaks: sharding.files_readers_in_real_workers
# witness of: test_sharding.py::test_files_two_ranks_two_workers_each_line_exactly_once; test_sharding.py::test_files_readers_in_simulated_workers

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        worker_id, num_workers = (0, 1) if info is None else (info.id, info.num_workers)
        readers = self.world_size
        reader = self.rank
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as lines:
                for line in lines:
                    yield line.removesuffix("\n")
### END SOLUTION
