# WRONG: reads with `while (line := f.readline().removesuffix('\n'))`, which ends the file at its first empty line; a file 'a\n\nb\n' yields ['a'] instead of ['a', '', 'b'].
# breaks: sharding.files_remove_only_the_line_ending

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        k, wid = (1, 0) if info is None else (info.num_workers, info.id)
        readers = self.world_size * k
        reader = self.rank * k + wid
        for path in self.paths[reader::readers]:
            with open(path, encoding="utf-8") as f:
                while (line := f.readline().removesuffix("\n")):
                    yield line
### END SOLUTION
