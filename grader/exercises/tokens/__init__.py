"""The exercise tokens: see grader/exercises/__init__.py for what its folder holds."""
