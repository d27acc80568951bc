"""The grader's checks: one pytest file per exercise (check_<exercise>.py).

Each check is a function ``check_<name>`` whose docstring's first line says
what it proves. It asks the sandbox to run a probe against the submission,
and asserts properties of the plain data that comes back, here in the
grading process. Points and visibility come from grader/engine/rubric.toml.
"""
