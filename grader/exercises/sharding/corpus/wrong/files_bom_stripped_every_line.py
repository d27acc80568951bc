# WRONG: lstrips '\ufeff' from every line, not only the file's first; a file 'x\n\ufeffy\n' yields ['x', 'y'] instead of ['x', '\ufeffy'].
# breaks: sharding.files_bom_and_other_boundaries_either_way
# witness of: test_sharding.py::test_files_a_mark_inside_a_file_is_kept

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        k, wid = (1, 0) if info is None else (info.num_workers, info.id)
        readers = self.world_size * k
        reader = self.rank * k + wid
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.endswith("\n"):
                        line = line[:-1]
                    yield line.lstrip("\ufeff")
### END SOLUTION
