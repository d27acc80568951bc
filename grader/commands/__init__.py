"""The command front ends: one module per ``python -m grader`` command (see :mod:`grader.cli`).

Each holds ``HELP``, an optional ``DESCRIPTION``, ``add_arguments(parser)``
and ``run(args) -> int``, and nothing else: the work is a library call
(:mod:`grader.engine`, :mod:`grader.writers`, :mod:`grader.tools`). Bad input
raises :class:`grader.cli.CommandError`, which ``cli.main`` turns into exit 2.
"""
