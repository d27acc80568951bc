"""Length-framed JSON over pipes, with deadlines and size caps.

A frame is an 8-byte big-endian length followed by that many bytes of UTF-8
JSON.  Every read takes an absolute ``time.monotonic()`` deadline (``None``
only for the zygote's idle wait for its next request) and a size cap, and
raises :class:`ChannelError` rather than hanging or allocating without bound.
:func:`send` and :func:`receive` carry the typed messages of
:mod:`grader.shared.messages`.
"""

from __future__ import annotations

import json
import os
import select
import struct
import time
from typing import Any

from grader.shared.messages import MessageError, decode, encode

_HEADER = struct.Struct(">Q")


class ChannelError(Exception):
    """A frame could not be read or written (end of file, deadline, garbage, wrong message)."""


def _wait_fd(fd: int, events: int, deadline: float | None) -> None:
    poller = select.poll()
    poller.register(fd, events)
    while True:
        wait_ms = None if deadline is None else max(0, int((deadline - time.monotonic()) * 1000))
        if poller.poll(wait_ms):
            return
        if deadline is not None and time.monotonic() >= deadline:
            raise ChannelError("deadline passed")


def write_all(fd: int, data: bytes, deadline: float | None) -> None:
    """Write all of ``data`` before ``deadline``."""
    view = memoryview(data)
    while view:
        _wait_fd(fd, select.POLLOUT, deadline)
        try:
            view = view[os.write(fd, view):]
        except BlockingIOError:
            continue
        except OSError as exc:
            raise ChannelError(f"write failed: {exc}") from exc


def read_exact(fd: int, size: int, deadline: float | None) -> bytes:
    """Exactly ``size`` bytes, or :class:`ChannelError` at end of file or the deadline."""
    chunks = bytearray()
    while len(chunks) < size:
        _wait_fd(fd, select.POLLIN, deadline)
        try:
            chunk = os.read(fd, min(size - len(chunks), 1 << 20))
        except BlockingIOError:
            continue
        except OSError as exc:
            raise ChannelError(f"read failed: {exc}") from exc
        if not chunk:
            raise ChannelError("end of file")
        chunks += chunk
    return bytes(chunks)


def frame(payload: bytes) -> bytes:
    return _HEADER.pack(len(payload)) + payload


def send(fd: int, message: Any, deadline: float | None = None) -> None:
    """Send one typed message."""
    write_all(fd, frame(json.dumps(encode(message)).encode()), deadline)


def receive(fd: int, deadline: float | None, max_size: int, *expected: type) -> Any:
    """Receive one message of one of the ``expected`` types."""
    (size,) = _HEADER.unpack(read_exact(fd, _HEADER.size, deadline))
    if size > max_size:
        raise ChannelError(f"message of {size} bytes exceeds the {max_size}-byte cap")
    return parse(read_exact(fd, size, deadline), *expected)


def parse(payload: bytes, *expected: type) -> Any:
    """Decode one frame's payload into a typed message."""
    try:
        return decode(json.loads(payload), *expected)
    except (ValueError, MessageError, RecursionError) as exc:
        raise ChannelError(f"not a valid message: {exc}") from exc


def unframe(buf: bytes, max_size: int) -> bytes:
    """The payload of the one complete frame held in ``buf`` (trailing bytes are an error)."""
    if len(buf) < _HEADER.size:
        raise ChannelError(f"incomplete header ({len(buf)} bytes)")
    (size,) = _HEADER.unpack_from(buf)
    if size > max_size:
        raise ChannelError(f"declared size {size} exceeds the {max_size}-byte cap")
    if len(buf) != _HEADER.size + size:
        raise ChannelError(f"declared {size} bytes but {len(buf) - _HEADER.size} followed")
    return buf[_HEADER.size:]
