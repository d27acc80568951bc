"""Hostile: seed_worker ends the process with os._exit (also at import of a worker)."""
import os


def seed_worker(worker_id):
    os._exit(0)
