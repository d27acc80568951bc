# WRONG: with a single reader it pops files off self.paths itself instead of a copy; the second list(ShardedFiles([b, c])) yields [] instead of ['b0', 'c0'].
# breaks: sharding.files_every_iter_starts_afresh

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        k, wid = (1, 0) if info is None else (info.num_workers, info.id)
        readers = self.world_size * k
        reader = self.rank * k + wid
        todo = self.paths if readers == 1 else self.paths[reader::readers]
        while todo:
            path = todo.pop(0)
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.endswith("\n"):
                        line = line[:-1]
                    yield line
### END SOLUTION
