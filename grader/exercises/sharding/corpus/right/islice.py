# RIGHT: shards both streams with itertools.islice(start=reader, step=readers) and reads lines with readline() in a loop.
import itertools
import os

### BEGIN SOLUTION ShardedRange.__iter__
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        return itertools.islice(range(self.n), start, None, step)
### END SOLUTION

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        k, w = (1, 0) if info is None else (info.num_workers, info.id)
        for path in itertools.islice(self.paths, self.rank * k + w, None, self.world_size * k):
            with open(os.fspath(path), encoding="utf-8") as f:
                while True:
                    line = f.readline()
                    if not line:
                        break
                    yield line[:-1] if line.endswith("\n") else line
### END SOLUTION
