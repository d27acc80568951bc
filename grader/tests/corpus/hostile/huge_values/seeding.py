"""Hostile: seed_worker returns an object with a 100 MB repr; huge error messages."""
class Huge:
    def __repr__(self):
        return "H" * (100 << 20)


class HugeError(Exception):
    def __str__(self):
        return "E" * (50 << 20)


_calls = [0]


def seed_worker(worker_id):
    _calls[0] += 1
    if _calls[0] % 2:
        raise HugeError()
    return Huge()
