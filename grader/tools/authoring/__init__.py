"""Authoring: what an instructor uses to write and prove the lab itself.

The stub generator (``solutions/`` -> ``exercises/``), the contract table
(every docstring sentence a promise or an explanation, and its rendered
page), the story of one check (``explain``), the checks of the lab's own
files (``check``), the answer corpus and its scoreboard, the example class
a dry run grades, and the grading bench. Nothing here touches a student's
submission.
"""
