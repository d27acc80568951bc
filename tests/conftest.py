"""Shared set-up of the public tests.

The tests run against ``exercises/`` (your code). ``--impl PACKAGE`` (or
``LAB_IMPL=PACKAGE``) tests another package that holds the same five
modules instead. Run one exercise's tests with its marker: ``pytest -m
collate`` (also ``sharding``, ``seeding``, ``bucketing``, ``tokens``).

``LAB_START_METHOD=forkserver`` (or ``spawn``, ``fork``) makes that the
default start method of this test process, as Python 3.14 makes
forkserver the default on Linux; the worker tests run every start method
your platform has whatever the default.

A test that hits a stub still raising NotImplementedError is reported on one
line ("not done yet: ...") instead of a traceback.
"""

from __future__ import annotations

import importlib
import os
import random
import re
import tomllib
import types
from pathlib import Path

import numpy as np
import pytest

# The lab script's helpers, one copy for both: iterate a DataLoader, always shut its workers down; the handout's
# whole-batch recipe (TokenWindows.read_batch behind batch_size=None and a BatchSampler).
from exercises.lab import WholeBatches, batches  # noqa: F401  (re-exported to the test modules)

#: The exercises, from lab.toml at the top of the repository (the lab's one list of them).
LAB = tomllib.loads((Path(__file__).resolve().parent.parent / "lab.toml").read_text(encoding="utf-8"))["exercise"]
EXERCISES = tuple(entry["name"] for entry in LAB)
# Linear by construction: a match starts only where a name starts, and possessive quantifiers never backtrack.
_NOT_DONE = re.compile(r"(?<![\w.])[\w.]++: [\w.]++ is not implemented yet[^\n]*+")


def pytest_configure(config):
    """One marker per exercise (``pytest -m collate``), named in lab.toml; LAB_START_METHOD's default start method."""
    method = os.environ.get("LAB_START_METHOD")
    if method:
        import multiprocessing

        multiprocessing.set_start_method(method, force=True)
    for number, entry in enumerate(LAB, start=1):
        config.addinivalue_line("markers", f"{entry['name']}: exercise {number}, {', '.join(entry['entry_points'])}")


def pytest_addoption(parser):
    parser.addoption(
        "--impl",
        default=os.environ.get("LAB_IMPL", "exercises"),
        help="package whose implementations are tested (default: exercises, your code)",
    )


@pytest.fixture(scope="session")
def lab(pytestconfig):
    """The package under test, with its five exercise modules as attributes (``lab.collate`` ...)."""
    package = pytestconfig.getoption("--impl")
    try:
        modules = {name: importlib.import_module(f"{package}.{name}") for name in EXERCISES}
    except ModuleNotFoundError as exc:
        pytest.exit(f"--impl {package}: cannot import {exc.name!r}; run pytest from the repository root", returncode=4)
    return types.SimpleNamespace(package=package, **modules)


def not_done_line(excinfo) -> str | None:
    """The stub's one-line message if this failure comes from an unfinished exercise."""
    if excinfo is None:
        return None
    text = str(excinfo.value)
    if excinfo.errisinstance(NotImplementedError) or "NotImplementedError" in text:
        match = _NOT_DONE.search(text)
        return f"not done yet: {match.group(0) if match else text.strip().splitlines()[-1]}"
    return None


def pytest_collection_modifyitems(items):
    """Quick tests first: in each file the tests that start worker processes
    run last, and the lab's experiments after every file.

    Those take seconds each (a spawn worker imports torch); a mistake that
    shows without workers is then reported first, and ``-x`` stops there.
    """
    files = {}

    def order(item):
        return (item.get_closest_marker("lab") is not None, files.setdefault(item.path, len(files)),
                item.get_closest_marker("workers") is not None)

    items.sort(key=order)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    if report.failed and call.excinfo is not None:
        line = not_done_line(call.excinfo)
        if line:
            report.longrepr = line


def start_methods():
    """Worker start methods to test: spawn everywhere, fork and forkserver where the platform has them.

    fork is only used on Linux: macOS has it but it is unsafe there and not the default.
    """
    import multiprocessing
    import sys

    available = multiprocessing.get_all_start_methods()
    methods = ["spawn"]
    if sys.platform.startswith("linux"):
        methods.insert(0, "fork")
    if "forkserver" in available:
        methods.append("forkserver")
    return methods


def fails_here_if_not_done(call):
    """Run ``call()`` once in this process, so that an unfinished stub fails here, in milliseconds,
    instead of after worker processes have started (a spawn worker takes seconds to start).

    Only NotImplementedError is passed on: any other problem is for the worker run to show.
    """
    try:
        call()
    except NotImplementedError:
        raise
    except Exception:
        pass


def seed_worker_here(lab):
    """Call seed_worker in this process (outside a worker), leaving the RNGs of this process as they were."""
    numpy_state, random_state = np.random.get_state(), random.getstate()
    try:
        lab.seeding.seed_worker(0)
    finally:
        np.random.set_state(numpy_state)
        random.setstate(random_state)


WORKER_TIMEOUT_S = 60
"""DataLoader(timeout=...) for worker tests: a hung worker fails the test instead of freezing it.

60 s, as PyTorch's own DataLoader tests (15 s proved flaky there): a cold spawn worker imports torch first.
The worker tests' pytest time limits sit above it."""


def worker_loader(dataset, start_method, num_workers=2, **kwargs):
    """A DataLoader with real worker processes started by ``start_method``."""
    import multiprocessing

    from torch.utils.data import DataLoader

    return DataLoader(
        dataset,
        num_workers=num_workers,
        multiprocessing_context=multiprocessing.get_context(start_method),
        timeout=WORKER_TIMEOUT_S,
        **kwargs,
    )
