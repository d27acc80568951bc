# WRONG: drops repeated paths (dict.fromkeys) before sharding; ShardedFiles([b, b]) yields ['b0'] instead of ['b0', 'b0'].
# breaks: sharding.files_in_the_order_given
import os

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        k, wid = (1, 0) if info is None else (info.num_workers, info.id)
        readers = self.world_size * k
        reader = self.rank * k + wid
        paths = list(dict.fromkeys(os.fspath(p) for p in self.paths))
        for path in paths[reader::readers]:
            with open(path, encoding="utf-8") as f:
                for line in f:
                    if line.endswith("\n"):
                        line = line[:-1]
                    yield line
### END SOLUTION
