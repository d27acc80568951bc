"""Hostile: a syntax error."""
class ShardedRange(:
    pass
