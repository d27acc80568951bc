"""The instructor's tools, in rooms by job: authoring, delivery, intake and class grading (each says what it holds).

Their command lines are in :mod:`grader.commands`. They are left out of the
published grader (``python -m grader publish``), which the students'
workflows and the hosts run. Which room may import which is held by
grader/tests/test_house.py.
"""
