# WRONG: keeps the stream's position on the dataset (self.position) and resets it only when a pass ends, so an iter() after a partial pass resumes where the dropped one stopped, and two iterators taken in turns share one position.
# breaks: sharding.range_every_iter_starts_afresh

### BEGIN SOLUTION ShardedRange.__iter__
        info = get_worker_info()
        start, step = (0, 1) if info is None else (info.id, info.num_workers)
        if not hasattr(self, "position"):
            self.position = start
        while self.position < self.n:
            value = self.position
            self.position += step
            yield value
        del self.position  # only a pass that runs to its end starts the next one afresh
### END SOLUTION
