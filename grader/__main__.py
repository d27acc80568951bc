"""``python -m grader``: the instructor's command line (see grader/cli.py)."""

import sys

from grader.cli import main

sys.exit(main())
