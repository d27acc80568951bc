"""The command front ends: one module per ``python -m grader`` command (listed in :mod:`grader.command_table`).

Each holds ``HELP``, an optional ``DESCRIPTION``, ``add_arguments(parser)``
and ``run(args) -> int``, and nothing else: the work is a library call
(:mod:`grader.engine`, :mod:`grader.writers`, :mod:`grader.tools`). Bad input
raises :class:`CommandError`, which :func:`grader.cli.main` turns into exit 2.
"""


class CommandError(Exception):
    """Bad input a command cannot go on with: ``python -m grader`` prints ``python -m grader NAME: error: MESSAGE`` and exits 2."""
