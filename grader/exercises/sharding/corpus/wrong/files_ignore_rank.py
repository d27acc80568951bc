# WRONG: ShardedFiles shards only over the workers and ignores rank and world_size, so every rank reads the same files.
# breaks: sharding.files_ranks_split_by_file, sharding.files_readers_in_real_workers
# witness of: test_sharding.py::test_files_two_ranks_split_the_files

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        worker_id, num_workers = (0, 1) if info is None else (info.id, info.num_workers)
        readers = num_workers
        reader = worker_id
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as lines:
                for line in lines:
                    yield line.removesuffix("\n")
### END SOLUTION
