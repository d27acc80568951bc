# RIGHT: gives each worker a balanced contiguous block [id*n//k, (id+1)*n//k) and reads the files with newline='' stripping '\r\n', '\r' or '\n' itself.
import itertools

### BEGIN SOLUTION ShardedRange.__iter__
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        k, w = info.num_workers, info.id
        return iter(range(w * self.n // k, (w + 1) * self.n // k))
### END SOLUTION

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        k, w = (1, 0) if info is None else (info.num_workers, info.id)
        readers = self.world_size * k
        mine = [p for j, p in enumerate(self.paths) if j % readers == self.rank * k + w]
        for path in mine:
            with open(path, "r", encoding="utf-8", newline="") as f:
                for line in f:  # newline="": lines end in exactly one of "\r\n", "\r", "\n" (or nothing)
                    if line.endswith("\r\n"):
                        yield line[:-2]
                    elif line.endswith(("\n", "\r")):
                        yield line[:-1]
                    else:
                        yield line
### END SOLUTION
