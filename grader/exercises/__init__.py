"""The exercises, one folder each (``grader/exercises/<exercise>/``), holding everything of that exercise:

* ``probe.py``: the functions that run the student's code inside the jail and bring back plain data. It is
  the folder's only module that enters the jail (:func:`grader.sandbox.files.stage_modules`), so it imports
  only :mod:`grader.inside` and :mod:`grader.shared` (``grader/tests/test_house.py``);
* ``promises.toml``: one entry per promise, everything about it in one place (its id, which names its judge
  ``check_<name>``; its points; the docstring sentences it proves; the public tests that show it; its boundary
  inputs; the states it speaks for), and the sentences that promise nothing, explained
  (:mod:`grader.tools.authoring.contract_table`, :mod:`grader.engine.rubric`);
* ``check_<exercise>.py``: the judges, run by pytest in the grading process. Each is a function
  ``check_<name>`` whose docstring's first line says what it proves; it asks for a probe (or reads the
  exercise's pool of results) and asserts its promise's properties of what came back. Its points and
  visibility come from its entry in ``promises.toml``;
* the checks' helpers, if any (``tables.py``, ``windows.py``);
* ``corpus/right/`` and ``corpus/wrong/``: the answers the grader is tested against
  (:mod:`grader.tools.authoring.corpus`).

The list of exercises is lab.toml (grader/registry.py), which derives every one of these paths from the name.
Nothing in this package's ``__init__`` files imports anything: they are staged into the jail.
"""
