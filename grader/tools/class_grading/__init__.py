"""Class grading: the grade of record for a whole class, and what a person reviews after it.

``batch`` (grade every student, cache by content and grader), the class
reports and ``merge`` of slices, the Canvas import, ``regrade`` (what differs
from an earlier report) and the private review (code similarity and
constructs no honest answer needs). It reads submissions through the intake
room; it changes no score it did not grade.
"""
