# RIGHT: filters the full stream with i % k == worker id (slowly, with a small sleep per item) and tests each file's index modulo the reader count.
import time

### BEGIN SOLUTION ShardedRange.__iter__
        info = get_worker_info()
        k, w = (1, 0) if info is None else (info.num_workers, info.id)

        def share():
            for i in range(self.n):
                if i % k == w:
                    time.sleep(0.0005)
                    yield i

        return share()
### END SOLUTION

### BEGIN SOLUTION ShardedFiles.__iter__
        info = get_worker_info()
        k, w = (1, 0) if info is None else (info.num_workers, info.id)
        readers, reader = self.world_size * k, self.rank * k + w
        for index, path in enumerate(self.paths):
            if index % readers != reader:
                continue
            with open(path, encoding="utf-8") as f:
                for line in f:
                    time.sleep(0.0005)
                    yield line.rstrip("\n")
### END SOLUTION
