"""Delivery: what leaves this repository for students and hosts.

The student template (``release``), the published grader the student
workflow runs (``publish``), and the host bundles built from it (the
Gradescope zip, the Classroom 50 folder), with their templates. It may read
the authoring room (a release refuses stale stubs); it never grades.
"""
