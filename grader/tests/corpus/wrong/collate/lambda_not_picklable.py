# WRONG: pad_collate is a lambda bound at module level, which spawn and forkserver workers cannot pickle.
# breaks: collate.picklable_for_workers

### AT THE END OF THE MODULE
_pad_collate = pad_collate
pad_collate = lambda *args, **kwargs: _pad_collate(*args, **kwargs)  # noqa: E731
