"""The five exercises of the data-loading lab.

Each module holds one exercise; read its docstrings for the exact contract:

- ``collate``   -- ``pad_collate``: right-pad variable-length sequences.
- ``sharding``  -- ``ShardedRange`` and ``ShardedFiles``: iterable datasets that
  yield each item exactly once across DataLoader workers and ranks.
- ``seeding``   -- ``seed_worker``: a worker_init_fn that seeds every worker.
- ``bucketing`` -- ``BucketBatchSampler``: batches of similar lengths.
- ``tokens``    -- ``TokenWindows``: next-token windows over a memory-mapped file.

``python -m <this package>.lab`` runs the lab's four experiments on them.
"""
