# WRONG: pad_collate is a lambda bound at module level, which spawn and forkserver workers cannot pickle.
# breaks: collate.same_batches_in_real_workers
# witness of: test_collate.py::test_same_batches_in_worker_processes

### AT THE END OF THE MODULE
_pad_collate = pad_collate
pad_collate = lambda *args, **kwargs: _pad_collate(*args, **kwargs)  # noqa: E731
