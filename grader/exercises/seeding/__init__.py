"""The exercise seeding: see grader/exercises/__init__.py for what its folder holds."""
