# Hostile: Latin-1 bytes, not UTF-8: café
import torch


def seed_worker(worker_id):
    return 'ÿþ'
