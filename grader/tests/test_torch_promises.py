"""The handout's fences 2-4 (LAB.md, "Fences 2-4: what PyTorch promises") hold for the pinned PyTorch.

They describe PyTorch's own behaviour and need no student code, so they are
not public tests (every public test fails until its exercise is done): this
suite checks them whenever the torch pin changes.
"""

import torch
from torch.utils.data import DataLoader, DistributedSampler, WeightedRandomSampler, random_split


def _epoch(seed_or_generator, data, batch_size=4):
    g = seed_or_generator
    if isinstance(g, int):
        g = torch.Generator().manual_seed(g)
    loader = DataLoader(data, batch_size=batch_size, shuffle=True, generator=g)
    return [i for b in loader for i in b.tolist()]


def test_fence2_seeded_shuffling_and_random_split():
    """Order is a function of the generator seed; the generator advances; seeded splits repeat.

    Does not prove stability across PyTorch versions.
    """
    data = list(range(12))
    a, b, c = _epoch(7, data), _epoch(7, data), _epoch(8, data)
    assert a == b and a != c and sorted(a) == data

    g = torch.Generator().manual_seed(7)
    first, second = _epoch(g, data), _epoch(g, data)
    assert first == a and second != first, "one generator advances from epoch to epoch"

    def split(seed):
        parts = random_split(range(10), [0.5, 0.3, 0.2], generator=torch.Generator().manual_seed(seed))
        return [list(p.indices) for p in parts]

    parts = split(0)
    assert parts == split(0) and [len(p) for p in parts] == [5, 3, 2]
    flat = [i for p in parts for i in p]
    assert sorted(flat) == list(range(10)), "disjoint and covering"


def test_fence3_distributed_sampler_partitions_and_set_epoch():
    """Three simulated ranks: ceil(10/3) each, padding by repetition, reshuffle only with set_epoch.

    Says nothing about DDP's collectives.
    """
    data = list(range(10))

    def shares(epoch=None):
        out = []
        for rank in range(3):
            sampler = DistributedSampler(data, num_replicas=3, rank=rank, shuffle=True, seed=0)
            if epoch is not None:
                sampler.set_epoch(epoch)
            out.append(list(sampler))
        return out

    epoch0, epoch1, never_set = shares(0), shares(1), shares()
    assert [len(s) for s in epoch0] == [4, 4, 4]
    flat = [i for s in epoch0 for i in s]
    assert len(flat) == 12 and set(flat) == set(data), "two indices repeat as padding"
    assert epoch0 != epoch1
    assert never_set == epoch0 == shares(), "without set_epoch every epoch replays epoch 0"

    trimmed = [list(DistributedSampler(data, num_replicas=3, rank=r, shuffle=False, drop_last=True)) for r in range(3)]
    assert [len(s) for s in trimmed] == [3, 3, 3] and len({i for s in trimmed for i in s}) == 9


def test_fence4_weighted_sampler_balances_classes():
    """Inverse-frequency weights on a 90/10 split give about half positives, each drawn ~100 times."""
    labels = torch.tensor([0] * 900 + [1] * 100)
    weights = (1.0 / torch.bincount(labels).double())[labels]
    sampler = WeightedRandomSampler(weights, num_samples=20_000, replacement=True, generator=torch.Generator().manual_seed(0))
    drawn = torch.tensor(list(sampler))
    positive_share = labels[drawn].float().mean().item()
    assert 0.45 <= positive_share <= 0.55, positive_share  # +-14 standard deviations: seed-robust
    assert drawn[labels[drawn] == 1].unique().numel() == 100


def test_every_iter_draws_the_base_seed_also_without_workers():
    """LAB.md, "Seeding" and fence 2: every iter(loader) draws a base seed from the loader's generator, with
    num_workers=0 too, before the sampler shuffles; with persistent workers only the first iter() does.

    (torch/utils/data/dataloader.py, _BaseDataLoaderIter.__init__.) Does not prove which workers get which seed.
    """
    g = torch.Generator().manual_seed(7)
    before = g.get_state()
    iter(DataLoader(range(8), batch_size=4, generator=g))  # no shuffle, no workers: only the base seed is drawn
    after_one = g.get_state()
    assert not torch.equal(before, after_one), "iter() of a 0-worker loader advances its generator"
    shuffled = _epoch(7, list(range(8)))
    direct = list(torch.utils.data.RandomSampler(range(8), generator=torch.Generator().manual_seed(7)))
    assert shuffled != direct and sorted(shuffled) == sorted(direct), "the base seed is drawn before the shuffle"
    g.set_state(before)
    torch.empty((), dtype=torch.int64).random_(generator=g)
    assert torch.equal(g.get_state(), after_one), "one int64 draw: the base seed"


def test_the_pin_thread_calls_pin_memory_on_any_object_that_has_one():
    """LAB.md, "Pinned memory and non_blocking copies": the pinning walk calls .pin_memory() on any object that has
    one (torch/utils/data/_utils/pin_memory.py, pin_memory), walks mappings and sequences, passes the rest through.

    Runs the walk itself, on any machine: without an accelerator the loader never calls it.
    """
    from torch.utils.data._utils.pin_memory import pin_memory

    class Batch:
        def __init__(self, x):
            self.x = x

        def pin_memory(self):
            return ("pinned", self.x)

    assert pin_memory(Batch(1)) == ("pinned", 1)
    assert pin_memory({"a": Batch(2), "b": [Batch(3), "text", 4]}) == {"a": ("pinned", 2), "b": [("pinned", 3), "text", 4]}
    plain = object()
    assert pin_memory(plain) is plain
