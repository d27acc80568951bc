"""The grader's own test set-up: the graded class of 30, one fixture for every test that judges it.

``graded`` is what grade-class.yml's jobs gave over the shared class
(grader/tests/test_class_of_30.py), made once per test run whichever
pytest-xdist worker asks first (``once`` in grader/tests/once_per_run.py).
Every test that asks for it is put in one xdist group (:data:`CLASS_GROUP`;
``--dist loadgroup`` in pyproject.toml's addopts), so those tests run one
after the other on one worker while the other workers go on with the rest of
the suite: another worker that asked meanwhile would wait on the lock, idle
through the class's grading (its ``--jobs 2`` does not keep both cores busy
throughout: intake, the merge and the confirmations run one at a time).
"""

from __future__ import annotations

import pytest

from grader.tests.once_per_run import once

#: The xdist group of the tests that judge the graded class of 30.
CLASS_GROUP = "class_of_30"


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist reads the groups (it does in this hook)
def pytest_collection_modifyitems(items):
    for item in items:
        if "graded" in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group(CLASS_GROUP))


@pytest.fixture(scope="session")
def graded() -> dict:
    """What grading the class of 30 through grade-class.yml's jobs gave (test_class_of_30.grade_the_class)."""
    from grader.tests.test_class_of_30 import grade_the_class

    return once("class-of-30-graded", grade_the_class)
