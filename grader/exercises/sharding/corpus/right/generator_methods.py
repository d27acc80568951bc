# RIGHT: writes both __iter__ methods as generators with yield from, reading worker info through torch.utils.data and opening files via pathlib.
from pathlib import Path
import torch.utils.data

### BEGIN SOLUTION ShardedRange.__iter__
        info = torch.utils.data.get_worker_info()
        if info is None:
            yield from range(self.n)
        else:
            yield from range(self.n)[info.id :: info.num_workers]
### END SOLUTION

### BEGIN SOLUTION ShardedFiles.__iter__
        info = torch.utils.data.get_worker_info()
        num_workers = info.num_workers if info is not None else 1
        worker_id = info.id if info is not None else 0
        shard = slice(self.rank * num_workers + worker_id, None, self.world_size * num_workers)
        for path in self.paths[shard]:
            with Path(path).open("rt", encoding="utf-8") as f:
                yield from map(lambda s: s.removesuffix("\n"), f)
### END SOLUTION
