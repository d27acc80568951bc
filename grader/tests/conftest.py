"""The grader's own test set-up: which tests must share a pytest-xdist worker.

The graded class of 30 (the fixture ``graded``: grade-class.yml's jobs run
over the shared class, grader/tests/test_class_of_30.py) is made once per
run, whichever worker asks first (``once`` in grader/tests/class_of_30.py),
and any other worker that asks waits on its file lock doing nothing. Every
test that takes it is therefore put in one xdist group, so that with ``--dist loadgroup`` (what ``.ci/run`` and the
README pass) one worker grades the class and then runs those tests while the
other runs the rest of the suite. Without xdist the mark does nothing.
"""

from __future__ import annotations

import pytest

from grader.tests.class_of_30 import once

CLASS_OF_30_FIXTURE = "graded"


@pytest.fixture(scope="session")
def graded() -> dict:
    """What grading the class of 30 through grade-class.yml's jobs gave (test_class_of_30.grade_the_class)."""
    from grader.tests.test_class_of_30 import grade_the_class

    return once("class-of-30-graded", grade_the_class)


def pytest_collection_modifyitems(items):
    for item in items:
        if CLASS_OF_30_FIXTURE in getattr(item, "fixturenames", ()):
            item.add_marker(pytest.mark.xdist_group("class_of_30"))
