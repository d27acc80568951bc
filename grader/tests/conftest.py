"""Fixtures shared by the grader's tests."""

from __future__ import annotations

import pytest

from grader.paths import REPO
from grader.tests.preloaded_pytest import PreloadedPytest


@pytest.fixture(scope="session")
def preloaded_pytest():
    """Runs ``pytest`` in a fork of a process with torch imported (see preloaded_pytest.py); one per xdist worker."""
    runner = PreloadedPytest(REPO)
    yield runner
    runner.close()
