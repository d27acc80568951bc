"""Where things are: the one root of this repository (or of a published grader)."""

from pathlib import Path

#: The folder that holds the grader package: the instructor repository, or a published grader's root.
REPO = Path(__file__).resolve().parent.parent
