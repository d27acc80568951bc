"""The public tests' pytest set-up: markers, the ``--impl`` option, the ``lab`` fixture, "not done yet" reports.

The helpers the test modules import (worker loaders, start methods) are in
``lab_helpers.py``, beside this file.

The tests run against ``exercises/`` (your code). ``--impl PACKAGE`` (or
``LAB_IMPL=PACKAGE``) tests another package that holds the same five
modules instead. Run one exercise's tests with its marker: ``pytest -m
collate`` (also ``sharding``, ``seeding``, ``bucketing``, ``tokens``).
The tests that start DataLoader workers (and the lab's experiments) are
marked ``workers``: ``pytest -m "collate and not workers"`` is the quick
loop, seconds instead of tens of seconds. It judges sharding and seeding in
workers simulated in this process (``lab_helpers.as_worker``); only the
worker tests prove that real workers agree.

``LAB_START_METHOD=forkserver`` (or ``spawn``, ``fork``) makes that the
default start method of this test process, as Python 3.14 makes
forkserver the default on Linux; the worker tests run every start method
your platform has whatever the default.

A test that hits a stub still raising NotImplementedError is reported on one
line ("not done yet: ..."), instead of a traceback. A worker test that timed
out says so, and how to rerun it alone: on a busy machine a worker can be
slow to answer.
"""

from __future__ import annotations

import importlib
import os
import re
import tomllib
import types
from pathlib import Path

import pytest

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
    # The tests choose their worker counts, some above this machine's cores on purpose: torch's advice is not for them.
    config.addinivalue_line("filterwarnings", "ignore:This DataLoader will create:UserWarning")


def pytest_addoption(parser):
    try:
        parser.addoption(
            "--impl",
            default=os.environ.get("LAB_IMPL", "exercises"),
            help="package whose implementations are tested (default: exercises, your code)",
        )
    except ValueError:  # already added by another conftest.py of the same run, which accepts the option too
        pass


@pytest.fixture(scope="session")
def lab(pytestconfig):
    """The package under test, with its five exercise modules as attributes (``lab.collate`` ...)."""
    package = pytestconfig.getoption("--impl")
    try:
        modules = {name: importlib.import_module(f"{package}.{name}") for name in EXERCISES}
    except ModuleNotFoundError as exc:
        pytest.exit(f"--impl {package}: cannot import {exc.name!r}; run pytest from the repository root", returncode=4)
    return types.SimpleNamespace(package=package, **modules)


@pytest.fixture(scope="session")
def documented_default():
    """``documented_default(exercise, function, parameter)``: the default the docstring's signature gives a parameter
    (``("collate", "pad_collate", "pad_id")``), from tests/defaults.toml, which the instructor's tools write from the
    reference; your own signature is not asked."""
    table = tomllib.loads((Path(__file__).resolve().parent / "defaults.toml").read_text(encoding="utf-8"))

    def default(exercise, function, parameter):
        found = table.get(exercise, {})
        for part in function.split("."):
            found = found.get(part, {})
        return found[parameter]

    return default


def not_done_line(excinfo) -> str | None:
    """The stub's one-line message if this failure comes from an unfinished exercise."""
    if excinfo is None:
        return None
    text = str(excinfo.value)
    if excinfo.errisinstance(NotImplementedError) or "NotImplementedError" in text:
        match = _NOT_DONE.search(text)
        return f"not done yet: {match.group(0) if match else text.strip().splitlines()[-1]}"
    return None


#: What a worker test's failure says when a worker did not answer in time (the DataLoader's timeout, or pytest-timeout's).
_TIMED_OUT = ("DataLoader timed out after", "Timeout (>")


def timed_out_note(item, excinfo) -> str | None:
    """For a worker test that failed by a timeout: that the machine may have been busy, and how to rerun that test."""
    if excinfo is None or item.get_closest_marker("workers") is None:
        return None
    if not any(mark in str(excinfo.value) for mark in _TIMED_OUT):
        return None
    return (f"a worker did not answer in time. If this machine was busy (other programs, or pytest -n), rerun this test "
            f"alone before looking for a hang in your code:\n  python -m pytest \"{item.nodeid}\"")


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
        elif note := timed_out_note(item, call.excinfo):
            report.sections.append(("timed out", note))
