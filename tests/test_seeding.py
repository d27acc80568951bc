"""Exercise 3: seed_worker (see exercises/seeding.py)."""

import random

import numpy as np
import pytest
import torch
from lab_helpers import as_worker, batches, fails_here_if_not_done, seed_worker_here, start_methods, worker_loader
from torch.utils.data import Dataset

pytestmark = pytest.mark.seeding


class Draws(Dataset):
    """Each item reports the worker's torch seed and one draw from every RNG it should have seeded."""

    def __init__(self, n=8):
        self.n = n
        self.rng = np.random.default_rng(0)  # the same state in every worker unless replaced

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {
            "initial_seed": torch.initial_seed(),
            "numpy": float(np.random.random()),
            "random": random.random(),
            "rng": float(self.rng.random()),
        }


def first_draws(seed):
    """What each RNG yields first after seed_worker with this seed."""
    return {
        "numpy": np.random.RandomState(seed).random_sample(),
        "random": random.Random(seed).random(),
        "rng": np.random.default_rng(seed).random(),
    }


def test_outside_a_worker_seeds_numpy_and_random(lab):
    torch.manual_seed(1234)
    lab.seeding.seed_worker(0)
    expected = first_draws(1234)
    call = "after torch.manual_seed(1234); seed_worker(0)"
    got = np.random.random()
    assert got == expected["numpy"], f"{call}: expected np.random.random() == {expected['numpy']} (numpy.random.seed(1234)), got {got}"
    got = random.random()
    assert got == expected["random"], f"{call}: expected random.random() == {expected['random']} (random.seed(1234)), got {got}"


@pytest.mark.parametrize("torch_seed", [2**31 + 7, 2**32 + 5], ids=["bit_31_set", "above_2_32"])
def test_outside_a_worker_the_seed_is_torch_seed_modulo_2_32(lab, torch_seed):
    """Seeds with bit 31 set, or above 2**32: only % 2**32 gives the documented seed."""
    torch.manual_seed(torch_seed)
    lab.seeding.seed_worker(0)
    expected = first_draws(torch_seed % 2**32)
    got = np.random.random()
    assert got == expected["numpy"], f"numpy.random.seed({torch_seed} % 2**32) was expected: np.random.random() == {expected['numpy']}, got {got}"
    got = random.random()
    assert got == expected["random"], f"random.seed({torch_seed} % 2**32) was expected: random.random() == {expected['random']}, got {got}"


def test_returns_none(lab):
    torch.manual_seed(5)
    returned = lab.seeding.seed_worker(0)
    assert returned is None, f"seed_worker should return None, got {returned!r}"


def run_epochs(lab, start_method, seed, epochs=1):
    fails_here_if_not_done(lambda: seed_worker_here(lab))
    loader = worker_loader(
        Draws(),
        start_method,
        batch_size=2,
        worker_init_fn=lab.seeding.seed_worker,
        generator=torch.Generator().manual_seed(seed),
    )
    out = []
    for _ in range(epochs):
        with batches(loader) as it:
            out.append([item for batch in it for item in zip(*[batch[k].tolist() for k in ("initial_seed", "numpy", "random", "rng")])])
    return out


@pytest.mark.workers
@pytest.mark.timeout(90)
@pytest.mark.parametrize("start_method", start_methods())
def test_in_workers_every_rng_is_seeded_from_the_torch_seed(lab, start_method):
    (epoch,) = run_epochs(lab, start_method, seed=5)
    first_of_worker = {}
    for initial_seed, np_draw, random_draw, rng_draw in epoch:
        first_of_worker.setdefault(initial_seed, (np_draw, random_draw, rng_draw))
    assert len(first_of_worker) == 2, f"two workers should report two torch seeds, got {sorted(first_of_worker)}"
    for initial_seed, (np_draw, random_draw, rng_draw) in first_of_worker.items():
        expected = first_draws(initial_seed % 2**32)
        where = f"in a {start_method} worker with torch.initial_seed() = {initial_seed}"
        assert np_draw == expected["numpy"], (f"{where}: expected the first np.random.random() == {expected['numpy']} "
                                              f"(numpy.random.seed(torch.initial_seed() % 2**32)), got {np_draw}")
        assert random_draw == expected["random"], (f"{where}: expected the first random.random() == {expected['random']} "
                                                   f"(random.seed(torch.initial_seed() % 2**32)), got {random_draw}")
        assert rng_draw == expected["rng"], (f"{where}: expected the first dataset.rng.random() == {expected['rng']} "
                                             f"(dataset.rng = numpy.random.default_rng(seed)), got {rng_draw}")


@pytest.mark.workers
@pytest.mark.timeout(90)
def test_reruns_repeat_workers_differ_epochs_differ(lab):
    method = start_methods()[0]
    first, second = run_epochs(lab, method, seed=3, epochs=2)
    (rerun,) = run_epochs(lab, method, seed=3)

    def draws(rows):
        """The draws of each item (numpy, random, rng), without the torch seed: that changes every epoch whatever seed_worker does."""
        return [row[1:] for row in rows]

    assert draws(first) == draws(rerun), f"the same loader seed should give identical draws: {draws(first)} and then {draws(rerun)}"
    assert draws(first) != draws(second), f"each epoch should draw new values, but epoch 2 repeated epoch 1's draws {draws(first)}"
    rng_draws = [row[3] for row in first]
    assert rng_draws[0] != rng_draws[2], f"worker 0 and worker 1 should draw different dataset.rng streams, both began with {rng_draws[0]}"


class NoRng(Dataset):
    """A dataset without an rng attribute: each item reports whether one appeared."""

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return hasattr(self, "rng")


@pytest.mark.workers
@pytest.mark.timeout(90)
def test_a_dataset_without_rng_gets_none(lab):
    fails_here_if_not_done(lambda: seed_worker_here(lab))
    loader = worker_loader(NoRng(), start_methods()[0], num_workers=1, batch_size=2, worker_init_fn=lab.seeding.seed_worker)
    with batches(loader) as it:
        flags = [flag for batch in it for flag in batch.tolist()]
    assert flags == [False, False], "seed_worker added an rng attribute to a dataset that had none; leave such a dataset as it is"


class ClassRng(Dataset):
    """A dataset whose class defines rng (made once, seeded 0): the instance has none of its own."""

    rng = np.random.default_rng(0)

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return {"initial_seed": torch.initial_seed(), "rng": float(self.rng.random()), "own": "rng" in vars(self)}


@pytest.mark.workers
@pytest.mark.timeout(90)
def test_a_dataset_whose_class_defines_rng_gets_one_of_its_own(lab):
    """hasattr finds an rng the class defines, so seed_worker replaces it (on the worker's copy of the dataset)."""
    fails_here_if_not_done(lambda: seed_worker_here(lab))
    loader = worker_loader(ClassRng(), start_methods()[0], num_workers=1, batch_size=None, worker_init_fn=lab.seeding.seed_worker)
    with batches(loader) as it:
        first = next(it)
    want = first_draws(first["initial_seed"] % 2**32)["rng"]
    assert first["rng"] == want, (f"expected the first dataset.rng.random() == {want} (dataset.rng = numpy.random.default_rng(seed), "
                                  f"also when rng is a class attribute), got {first['rng']}")
    assert first["own"], ("the worker's dataset has no rng of its own after seed_worker: set dataset.rng on the instance "
                          "(the class's rng stays the class's, shared by every other instance)")


class OtherRng(Dataset):
    """A dataset whose rng is an RNG of another type (a NumPy RandomState or a random.Random)."""

    def __init__(self, kind):
        self.rng = np.random.RandomState(0) if kind == "random_state" else random.Random(0)

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return {"type": type(self.rng).__name__}


@pytest.mark.workers
@pytest.mark.timeout(90)
@pytest.mark.parametrize("kind", ["random_state", "python_random"])
def test_an_rng_of_another_type_is_replaced_too(lab, kind):
    """Whatever the rng's value: an older RNG object is replaced by numpy.random.default_rng(seed) too."""
    fails_here_if_not_done(lambda: seed_worker_here(lab))
    loader = worker_loader(OtherRng(kind), start_methods()[0], num_workers=1, batch_size=None, worker_init_fn=lab.seeding.seed_worker)
    with batches(loader) as it:
        first = next(it)
    assert first["type"] == "Generator", f"dataset.rng was a {kind} and is still a {first['type']} after seed_worker: replace it"


class NoneRng(Dataset):
    """A dataset whose rng attribute exists and is None: each item reports the type seed_worker left there, and a draw."""

    def __init__(self):
        self.rng = None

    def __len__(self):
        return 2

    def __getitem__(self, i):
        return {"initial_seed": torch.initial_seed(), "type": type(self.rng).__name__,
                "rng": float(self.rng.random()) if self.rng is not None else -1.0}


@pytest.mark.workers
@pytest.mark.timeout(90)
def test_a_dataset_whose_rng_is_none_gets_one(lab):
    """The dataset has the attribute rng (its value is None), so seed_worker replaces it like any other value."""
    fails_here_if_not_done(lambda: seed_worker_here(lab))
    loader = worker_loader(NoneRng(), start_methods()[0], num_workers=1, batch_size=None, worker_init_fn=lab.seeding.seed_worker)
    with batches(loader) as it:
        first = next(it)
    assert first["type"] == "Generator", f"dataset.rng was None and is still {first['type']} after seed_worker: replace it, whatever its value"
    want = first_draws(first["initial_seed"] % 2**32)["rng"]
    assert first["rng"] == want, (f"expected the first dataset.rng.random() == {want} (dataset.rng = numpy.random.default_rng(seed)), "
                                  f"got {first['rng']}")


# The same promises in workers simulated in this process (lab_helpers.as_worker): seconds, not a minute. The worker
# tests above stay the proof that real workers agree.

@pytest.mark.parametrize("base_seed", [5, 2**31 + 3, 2**32 + 11, 2**62 + 9], ids=["small", "bit_31_set", "above_2_32", "above_2_62"])
def test_in_simulated_workers_every_rng_is_seeded_from_the_torch_seed(lab, base_seed):
    """Workers 0, 1 and 2: torch.initial_seed() is the base seed plus the worker id already, and the loader's base
    seed is a 64-bit number, so only torch.initial_seed() % 2**32 gives the documented seed."""
    for worker_id in range(3):
        with as_worker(Draws(), worker_id, 3, base_seed) as dataset:
            lab.seeding.seed_worker(worker_id)
            got = {"numpy": np.random.random_sample(), "random": random.random(), "rng": float(dataset.rng.random())}
            torch_seed_after = torch.initial_seed()
        initial_seed = base_seed + worker_id
        assert torch_seed_after % 2**32 == initial_seed % 2**32, (
            f"in worker {worker_id} (simulated here) with torch.initial_seed() = {initial_seed}: after seed_worker it is "
            f"{torch_seed_after}; seeding torch is optional, but only with the same seed (torch.manual_seed(seed))")
        expected = first_draws(initial_seed % 2**32)
        where = f"in worker {worker_id} (simulated here) with torch.initial_seed() = {initial_seed}"
        for name, call, seeding in (("numpy", "np.random.random()", "numpy.random.seed(seed)"),
                                    ("random", "random.random()", "random.seed(seed)"),
                                    ("rng", "dataset.rng.random()", "dataset.rng = numpy.random.default_rng(seed)")):
            assert got[name] == expected[name], (
                f"{where}: expected the first {call} == {expected[name]} ({seeding} with seed = "
                f"torch.initial_seed() % 2**32 = {initial_seed % 2**32}; that already includes the worker id), "
                f"got {got[name]}")


@pytest.mark.parametrize("make, what", [(NoneRng, "None"), (ClassRng, "a class attribute"),
                                        (lambda: OtherRng("random_state"), "a numpy RandomState"),
                                        (lambda: OtherRng("python_random"), "a random.Random")],
                         ids=["none", "on_the_class", "random_state", "python_random"])
def test_in_a_simulated_worker_every_rng_attribute_is_replaced(lab, make, what):
    """hasattr decides, whatever the value: the worker's copy gets numpy.random.default_rng(seed) of its own."""
    with as_worker(make(), 1, 2, base_seed=40) as dataset:
        lab.seeding.seed_worker(1)
        own = vars(dataset).get("rng")
    where = f"in worker 1 (simulated here) with torch.initial_seed() = 41, a dataset whose rng was {what}"
    assert isinstance(own, np.random.Generator), (
        f"{where}: its own rng is {type(own).__name__} after seed_worker; set dataset.rng = "
        "numpy.random.default_rng(seed) on the worker's dataset (get_worker_info().dataset) whenever hasattr finds rng")
    want = np.random.default_rng(41).random()
    got = own.random()
    assert got == want, f"{where}: expected the first dataset.rng.random() == {want} (numpy.random.default_rng(41)), got {got}"


def test_in_a_simulated_worker_a_second_seeding_gives_a_fresh_generator(lab):
    """Every call makes its own Generator: one seeded with the same seed earlier in the process, and drawn from since,
    is not handed out again."""
    for which in ("first", "second"):
        with as_worker(Draws(), 0, 1, base_seed=77) as dataset:
            lab.seeding.seed_worker(0)
            got = float(dataset.rng.random())
            dataset.rng.random()
        expected = float(np.random.default_rng(77).random())
        assert got == expected, (f"the {which} seeding with torch.initial_seed() = 77 in one process: dataset.rng drew {got} "
                                 f"first, np.random.default_rng(77) draws {expected}: make a new Generator at every call")


def test_in_a_simulated_worker_a_dataset_without_rng_is_left_alone(lab):
    with as_worker(NoRng(), 0, 1, base_seed=3) as dataset:
        lab.seeding.seed_worker(0)
        added = hasattr(dataset, "rng")
    assert not added, "seed_worker added an rng attribute to a dataset that had none; leave such a dataset as it is"


def test_in_a_simulated_worker_without_rng_numpy_and_random_are_seeded(lab):
    """A dataset without rng is left as it is, but the worker's NumPy and random are seeded all the same."""
    with as_worker(NoRng(), 1, 2, base_seed=2**32 + 6) as _dataset:
        lab.seeding.seed_worker(1)
        got = {"numpy": np.random.random_sample(), "random": random.random()}
    expected = first_draws(7)
    where = "in worker 1 (simulated here) with torch.initial_seed() = 2**32 + 7, over a dataset without an rng attribute"
    for name, call, seeding in (("numpy", "np.random.random()", "numpy.random.seed(seed)"),
                                ("random", "random.random()", "random.seed(seed)")):
        assert got[name] == expected[name], (
            f"{where}: expected the first {call} == {expected[name]} ({seeding} with seed = torch.initial_seed() % 2**32 "
            f"= 7), got {got[name]}: a dataset without rng is left as it is, but NumPy and random are seeded anyway")
