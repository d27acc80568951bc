# WRONG: ShardedFiles sorts the paths before sharding (for a deterministic order), so files are not read in the order given and a reader gets other files than paths[reader::world_size * k].
# breaks: sharding.files_in_the_order_given
# witness of: test_sharding.py::test_files_in_the_order_given

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        worker_id, num_workers = (0, 1) if info is None else (info.id, info.num_workers)
        readers = self.world_size * num_workers
        reader = self.rank * num_workers + worker_id
        for path in sorted(self.paths)[reader::readers]:
            with open(path, encoding="utf-8") as lines:  # universal newlines: "\r\n" reads as "\n"
                for line in lines:
                    yield line.removesuffix("\n")
### END SOLUTION
