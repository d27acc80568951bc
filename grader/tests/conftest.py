"""The grader's own test set-up: the graded class of 30, one fixture for every test that judges it.

``graded`` is what grade-class.yml's jobs gave over the shared class
(grader/tests/test_class_of_30.py), made once per test run whichever
pytest-xdist worker asks first (``once`` in grader/tests/once_per_run.py).
A worker that asks while another grades waits on the lock, idle through the
class's grading (minutes; its ``--jobs 2`` does not keep both cores busy
throughout: intake, the merge and the confirmations run one at a time). So
the collection puts the first test that asks for ``graded`` first and the
others last (:func:`pytest_collection_modifyitems`): the first worker grades
the class at the start of the run, the others go on with the rest of the
suite, and the class is graded before a second test asks.
"""

from __future__ import annotations

import os

import pytest

from grader.tests.once_per_run import once


def pytest_addoption(parser):
    """``--impl``, the public tests' option (tests/conftest.py), is accepted here too, so that the one command line
    the docs show (``pytest tests grader/tests --impl solutions``) also runs with grader/tests alone. The grader's
    tests choose what they grade themselves and read no option."""
    try:
        parser.addoption("--impl", default=os.environ.get("LAB_IMPL", "exercises"),
                         help="the public tests' package under test (tests/conftest.py); grader/tests ignore it")
    except ValueError:  # tests/conftest.py, loaded first, has added it
        pass


def pytest_collection_modifyitems(items):
    """The first test that judges the graded class first, the other tests that judge it last (see the module
    docstring); the order is the same in every xdist worker, as it must be."""
    judging = [item for item in items if "graded" in getattr(item, "fixturenames", ())]
    if len(judging) > 1:
        rest = [item for item in items if item not in judging]
        items[:] = [judging[0], *rest, *judging[1:]]


@pytest.fixture(scope="session")
def graded() -> dict:
    """What grading the class of 30 through grade-class.yml's jobs gave (test_class_of_30.grade_the_class)."""
    from grader.tests.test_class_of_30 import grade_the_class

    return once("class-of-30-graded", grade_the_class)
