"""The probes' worker pools (grader/inside/probes/common.py) notice a dead worker at their own pace, not torch's 5 s."""

from __future__ import annotations

import os

import pytest
from torch.utils.data._utils import MP_STATUS_CHECK_INTERVAL
from torch.utils.data.dataloader import _MultiProcessingDataLoaderIter

from grader.inside.probes import common


class DiesInWorkers:
    """A dataset whose items end the process that reads them: a worker exits without a word (os._exit(0))."""

    def __len__(self):
        return 4

    def __getitem__(self, index):
        os._exit(0)


@pytest.mark.workers
def test_a_worker_that_exits_is_reported_by_the_loader_after_a_short_poll(monkeypatch):
    polls = []
    iterator = _MultiProcessingDataLoaderIter
    original = iterator._try_get_data

    def spy(self, timeout=MP_STATUS_CHECK_INTERVAL):
        polls.append(timeout)
        return original(self, timeout)

    monkeypatch.setattr(iterator, "_try_get_data", spy)
    with pytest.raises(RuntimeError, match="exited unexpectedly"):
        common.tagged_run(DiesInWorkers(), "fork", num_workers=1)
    assert polls and set(polls) == {common.DEATH_CHECK_S}, (
        f"the loader waited {polls} s between its checks for dead workers: torch's iterator no longer has the "
        "_try_get_data the probes shorten")
