"""Helpers shared by the probes: loading, stub detection, real DataLoader workers."""

from __future__ import annotations

import contextlib
import importlib
import multiprocessing
import os
import warnings

import numpy as np
import torch
from torch.utils.data import DataLoader, get_worker_info

from grader.inside import loader_deaths
from grader.inside.child import load_submission
from grader.shared.common import probe_module
from grader.shared.states import STATES


def load(exercise):
    """Import the student's module; return the public names it defines."""
    module = load_submission(exercise)
    return sorted(name for name in vars(module) if not name.startswith("_"))


def error_text(exc, limit=500):
    """'ExcType: message', cut to ``limit`` characters: a student's exception may carry megabytes."""
    text = f"{type(exc).__name__}: {exc}"
    return text if len(text) <= limit else text[: limit - 20] + " ...(message cut)"


def construction_outcome(build) -> str:
    """'ok', or 'ExcType: message' of what ``build()`` raised; a stub's NotImplementedError propagates."""
    try:
        build()
    except NotImplementedError:
        raise
    except Exception as exc:  # the check judges the message
        return error_text(exc)
    return "ok"


def _try(call):
    """'ok', 'not implemented' or 'ExcType: message' for one call."""
    try:
        call()
    except NotImplementedError as exc:
        return f"not implemented: {error_text(exc)}"
    except Exception as exc:  # any other failure still means somebody wrote code
        return error_text(exc)
    return "ok"


def entry_points(exercise):
    """Call each entry point of an exercise on a tiny input: {name: outcome}.

    Each exercise's probe module (``grader.exercises.<exercise>.probe``) says how, in its
    ``preflight(module)`` ({entry point: a call on a tiny input}). Used to
    tell an untouched stub (every entry point raises NotImplementedError)
    from a started exercise.
    """
    calls = importlib.import_module(probe_module(exercise)).preflight(load_submission(exercise))
    return {name: _try(call) for name, call in calls.items()}


class Tagged:
    """A collate_fn wrapper that records which process built each batch.

    ``collate_fn=None`` passes the item through unchanged (for batch_size=None).
    With ``catch``, a batch whose collate_fn raises gives ``{"raised": "<Type>"}``
    as its data, and the loader goes on (a stub's NotImplementedError still
    propagates): where the main process and the workers raise alike, they agree.
    """

    def __init__(self, collate_fn=None, catch=False):
        self.collate_fn, self.catch = collate_fn, catch

    def __call__(self, batch):
        info = get_worker_info()
        try:
            data = self.collate_fn(batch) if self.collate_fn is not None else batch
        except NotImplementedError:
            raise
        except Exception as exc:
            if not self.catch:
                raise
            data = {"raised": type(exc).__name__}
        return {"worker": -1 if info is None else info.id, "pid": os.getpid(), "data": data}


def context(start_method):
    """A multiprocessing context; forkserver preloads torch and numpy."""
    ctx = multiprocessing.get_context(start_method)
    if start_method == "forkserver":
        ctx.set_forkserver_preload(["torch", "numpy"])
    return ctx


@contextlib.contextmanager
def worker_batches(dataset, start_method, num_workers=2, **kwargs):
    """Iterate a DataLoader with real workers; always shut them down explicitly.

    Left to the garbage collector after an exception, a pool's shutdown can
    stall for two 5 s join timeouts.
    """
    loader = DataLoader(
        dataset,
        num_workers=num_workers,
        multiprocessing_context=context(start_method),
        # No DataLoader timeout: with one, a worker that dies is only noticed when
        # it expires; without, within DEATH_CHECK_S. A hung worker meets the probe's timeout.
        **kwargs,
    )
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", message="This DataLoader will create")
        it = iter(loader)
    _notice_deaths_sooner(it)
    try:
        yield it
    except BaseException as exc:
        loader_deaths.mark(exc, getattr(it, "_workers", ()))  # a worker's death is a cause, never a text to match
        raise
    finally:
        shutdown = getattr(it, "_shutdown_workers", None)  # absent with num_workers=0
        if shutdown is not None:
            shutdown()


#: How often the loader looks for a dead worker while it waits for a batch; the DataLoader's own interval is 5 s
#: (torch.utils.data._utils.MP_STATUS_CHECK_INTERVAL), which a student whose workers die paid at every probe.
DEATH_CHECK_S = 0.25


def _notice_deaths_sooner(it) -> None:
    """Make ``it`` (a multi-process loader iterator) wait at most :data:`DEATH_CHECK_S` between its checks for dead
    workers. It still waits as long as a live worker takes (no DataLoader timeout): only the polling is shorter,
    and the error a dead worker gives is the loader's own."""
    wait = getattr(it, "_try_get_data", None)
    if wait is not None and getattr(it, "_workers", None):
        it._try_get_data = lambda timeout=DEATH_CHECK_S: wait(timeout=timeout)


def tagged_run(dataset, start_method, num_workers=2, collate_fn=None, catch=False, **kwargs):
    """[(worker id, pid, data)] for every batch a real worker pool yields, in arrival order (``catch``: see Tagged)."""
    with worker_batches(dataset, start_method, num_workers, collate_fn=Tagged(collate_fn, catch), **kwargs) as it:
        return [(b["worker"], b["pid"], b["data"]) for b in it]


#: The most items a state's passes take: a stream that never ends is another promise's to judge.
STATE_PASS_LIMIT = 100_000


def attempted(make, error=lambda text: ["error", text]):
    """``make()``, or ``error("<Type>: <message>")`` when it raises: a state whose pass raises gives data the checks
    judge, and the other states' data stands. A stub's NotImplementedError propagates."""
    try:
        return make()
    except NotImplementedError:
        raise
    except Exception as exc:
        return error(error_text(exc, 200))


def in_state(dataset, state):
    """``dataset`` put in ``state`` (one of :data:`STATES`): the same object after its passes, or its pickled copy.

    What the passes yield is not kept: the fresh-iter checks judge it. A
    pass that raises leaves the object as it is (those checks judge that
    too); a stub's NotImplementedError propagates.
    """
    import itertools
    import pickle

    def attempt(run):
        attempted(run, lambda text: None)

    if state == "fresh":
        return dataset
    if state == "pickled":
        return pickle.loads(pickle.dumps(dataset))
    if state == "after_a_pass":
        attempt(lambda: sum(1 for _ in itertools.islice(iter(dataset), STATE_PASS_LIMIT)))
    elif state == "after_a_partial_pass":
        attempt(lambda: list(itertools.islice(iter(dataset), 2)))
    elif state == "after_interleaved_passes":
        def interleave():
            one, two = iter(dataset), iter(dataset)
            for _ in range(STATE_PASS_LIMIT):
                if next(one, _END) is _END and next(two, _END) is _END:
                    break
        attempt(interleave)
    else:
        raise ValueError(f"unknown state {state!r}: one of {', '.join(STATES)}")
    return dataset


_END = object()


def plain(value):
    """Tensors and arrays to lists, recursively, so results travel as JSON."""
    if isinstance(value, torch.Tensor):
        return value.tolist()
    if isinstance(value, np.ndarray):
        return value.tolist()
    if isinstance(value, dict):
        return {str(k): plain(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    return value


def describe(value):
    """A short, student-readable description of a returned value's type and shape."""
    if isinstance(value, torch.Tensor):
        return f"tensor(dtype={value.dtype}, shape={tuple(value.shape)})"
    if isinstance(value, np.ndarray):
        return f"numpy array(dtype={value.dtype}, shape={value.shape})"
    return type(value).__name__
