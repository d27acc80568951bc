"""The grader's own test set-up: the graded class of 30, one fixture for every test that judges it.

``graded`` is what grade-class.yml's jobs gave over the shared class
(grader/tests/test_class_of_30.py), made once per test run whichever
pytest-xdist worker asks first (``once`` in grader/tests/once_per_run.py);
another worker that asks meanwhile waits on its lock. The wait costs little
wall time: the class is graded with ``--jobs 2``, which keeps both cores busy.
"""

from __future__ import annotations

import pytest

from grader.tests.once_per_run import once


@pytest.fixture(scope="session")
def graded() -> dict:
    """What grading the class of 30 through grade-class.yml's jobs gave (test_class_of_30.grade_the_class)."""
    from grader.tests.test_class_of_30 import grade_the_class

    return once("class-of-30-graded", grade_the_class)
