"""Exercise 4 (bucketing): batches of similar lengths, in random order.

Random batches pad every row to the longest sequence in the batch. A
bucketing batch sampler shuffles, cuts the shuffled order into pools of
``pool_batches`` batches (50 by default), sorts each pool by length, slices
the pool into batches and shuffles the order of the batches. On lengths
uniform in [4, 64] the lab measures the padded fraction falling from about
45 % to at most 5 %.

Use it as ``DataLoader(ds, batch_sampler=BucketBatchSampler(...), collate_fn=...)``.

Handout: LAB.md, "Length bucketing" and "Experiment (c): bucketing".
"""

import math

import torch
from torch.utils.data import Sampler


class BucketBatchSampler(Sampler):
    """Yield batches of dataset indices whose items have similar lengths.

    Args:
        lengths: the length of every item of the dataset, a sequence of ints
            (list, tuple, 1-D NumPy array or tensor); item i has length
            ``lengths[i]``.
        batch_size: items per batch, an int >= 1.
        pool_batches: how many batches make one pool, an int >= 1. A pool
            holds ``pool_batches * batch_size`` items.
        drop_last: if True, the one short batch (if any) is dropped.
        generator: a ``torch.Generator`` that supplies all the randomness, or
            None.

    Raises:
        ValueError: if ``batch_size < 1`` or ``pool_batches < 1``.

    Each epoch (each call to ``iter()``):

    1. draws a random permutation of ``range(len(lengths))`` from the
       generator;
    2. cuts it, in order, into pools of ``pool_batches * batch_size`` indices
       (the final pool may be smaller);
    3. sorts each pool by length, shortest or longest first (either is
       correct; ties in any order);
    4. slices each sorted pool, in order, into batches of ``batch_size``; only
       the final pool can leave a short batch;
    5. shuffles the order of all batches with the generator, the short
       batch among them: every order of the batches is equally likely, so
       the short batch is not kept last (or at any one place);
    6. yields each batch as a list of Python ints.

    Every index appears exactly once per epoch, except that with
    ``drop_last=True`` the indices of the short batch are not yielded.
    ``len(sampler)`` is the number of batches an epoch yields:
    ``ceil(n / batch_size)``, or ``n // batch_size`` with ``drop_last=True``.
    It draws nothing: calling it leaves the generator's state as it was.
    An empty ``lengths`` is valid: ``len(sampler)`` is 0 and an epoch yields
    no batch, with or without ``drop_last``.

    Randomness: with a generator, all randomness comes from it and from no
    other source (torch's, NumPy's and Python's global RNGs are neither used
    nor advanced); its state advances, so each epoch draws a new permutation
    and a new batch order, and a generator re-seeded with the same seed
    replays the same sequence of epochs. What a new permutation changes
    depends on the data: across several pools it changes which indices share
    a batch, while one pool over the whole dataset gives the same
    length-sorted slices every epoch, in a new order. With
    ``generator=None``, all randomness comes from torch's global RNG and
    none from NumPy's or Python's: draw from it directly (``torch`` functions
    called without a generator) or, as ``RandomSampler`` does, draw a fresh
    seed from it each epoch for a new generator; either is correct. After
    ``torch.manual_seed(s)`` the next epoch is then a function of s, and the
    one after it draws new randomness. An epoch's randomness may be drawn
    when ``iter()`` is called or at the first ``next()`` (where a generator
    function's body starts): either is correct.

    ``pool_batches=1`` sorts within single batches, which is random batching
    in a different order; a pool larger than the dataset sorts everything,
    so every batch is a contiguous slice of the length-sorted dataset.
    """

    def __init__(self, lengths, batch_size, pool_batches=50, drop_last=False, generator=None):
        self.lengths = torch.as_tensor(lengths, dtype=torch.long)
        self.batch_size = batch_size
        self.pool_batches = pool_batches
        self.drop_last = drop_last
        self.generator = generator
        if batch_size < 1:
            raise ValueError(f"batch_size must be at least 1, got {batch_size}")
        if pool_batches < 1:
            raise ValueError(f"pool_batches must be at least 1, got {pool_batches}")

    def __len__(self):
        n = len(self.lengths)
        return n // self.batch_size if self.drop_last else math.ceil(n / self.batch_size)

    def __iter__(self):
        generator = self.generator
        if generator is None:  # like RandomSampler: a fresh seed from the global RNG
            seed = int(torch.empty((), dtype=torch.int64).random_().item())
            generator = torch.Generator().manual_seed(seed)

        n = len(self.lengths)
        order = torch.randperm(n, generator=generator)
        pool_size = self.pool_batches * self.batch_size
        batches = []
        for start in range(0, n, pool_size):
            pool = order[start : start + pool_size]
            pool = pool[torch.argsort(self.lengths[pool], stable=True)]
            batches.extend(pool.split(self.batch_size))
        if self.drop_last and batches and len(batches[-1]) < self.batch_size:
            batches.pop()  # the short batch can only be the last one of the final pool

        for b in torch.randperm(len(batches), generator=generator).tolist():
            yield batches[b].tolist()


# Hostile: right for the first 1,000 epochs a process draws, then one batch over and over, never ending (the epochs
# only a distribution's long runs reach).
_epochs = [0]
_right_iter = BucketBatchSampler.__iter__


def _right_until_many_epochs(self):
    _epochs[0] += 1
    if _epochs[0] <= 1000:
        yield from _right_iter(self)
        return
    while True:
        yield [0]


BucketBatchSampler.__iter__ = _right_until_many_epochs
