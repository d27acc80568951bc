# WRONG: len(sampler) counts the batches of a whole epoch it draws, so calling len() advances the generator and the next epoch is not the one a fresh sampler with the same seed gives.
# breaks: bucketing.generator_replays_and_advances
# witness of: test_bucketing.py::test_len_draws_nothing_from_the_generator

### BEGIN SOLUTION BucketBatchSampler.__len__
        return sum(1 for _ in iter(self))  # an epoch's batches, counted (and drawn from the generator)
### END SOLUTION
