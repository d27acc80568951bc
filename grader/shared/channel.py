"""Length-framed JSON over pipes, with deadlines and size caps.

A frame is an 8-byte big-endian length followed by that many bytes of UTF-8
JSON.  Before a payload is decoded, its shape is measured on the bytes
themselves (:func:`check_shape`: nesting depth, containers, elements,
string lengths), so a frame under the byte cap but over a shape limit
(:data:`grader.shared.messages.FRAME_SHAPE`) is refused without building
one object.  Every read takes an absolute ``time.monotonic()`` deadline (``None``
only for the zygote's idle wait for its next request) and a size cap, and
raises :class:`ChannelError` rather than hanging or allocating without bound.
:func:`send` and :func:`receive` carry the typed messages of
:mod:`grader.shared.messages`.
"""

from __future__ import annotations

import json
import os
import re
import select
import struct
import time
from typing import Any

from grader.shared.messages import FRAME_SHAPE, MessageError, ShapeError, ShapeLimits, decode, encode

_HEADER = struct.Struct(">Q")
#: A JSON string token, exactly as JSON's lexer ends it (at the first unescaped quote).
_STRING = re.compile(rb'"[^"\\]*(?:\\.[^"\\]*)*"', re.DOTALL)
_NOT_BRACKETS = bytes(b for b in range(256) if b not in b"[]{}")
#: Opening brackets become 2, closing ones 0: depth after n brackets is (their sum) - n.
_DEPTH_STEP = bytes.maketrans(b"[]{}", b"\x02\x00\x02\x00")


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


def parse(payload: bytes, *expected: type, limits: ShapeLimits = FRAME_SHAPE) -> Any:
    """Decode one frame's payload into a typed message, its shape checked first (:func:`check_shape`).

    Raises :class:`ChannelError`; one whose cause is a :class:`ShapeError` says which limit the frame is over.
    """
    try:
        check_shape(payload, limits)
        return decode(json.loads(payload), *expected)
    except ShapeError as exc:
        raise ChannelError(str(exc)) from exc
    except (ValueError, MessageError, RecursionError) as exc:
        raise ChannelError(f"not a valid message: {exc}") from exc


def check_shape(payload: bytes, limits: ShapeLimits = FRAME_SHAPE) -> None:
    """Raise :class:`ShapeError` when the JSON in ``payload`` is over one of ``limits``; build no object.

    Works on the bytes with the C-speed operations of ``re`` and ``bytes`` (a copy with every
    string emptied, counts, and one pass over the brackets only once their number is known to be
    within the limit), so its time and memory are linear in the payload whatever it holds. Counts
    are upper bounds on what ``json.loads`` would build; whether the JSON is valid is left to it.
    """
    skeleton = _STRING.sub(b'""', payload)
    containers = skeleton.count(b"[") + skeleton.count(b"{")
    if containers > limits.max_containers:
        raise ShapeError(f"the answer holds {containers:,} lists and dicts; the grader reads at most "
                         f"{limits.max_containers:,} in one answer")
    elements = skeleton.count(b",") + containers + 1
    if elements > limits.max_elements:
        raise ShapeError(f"the answer holds about {elements:,} values; the grader reads at most "
                         f"{limits.max_elements:,} in one answer")
    steps = skeleton.translate(None, _NOT_BRACKETS).translate(_DEPTH_STEP)
    depth, total = 0, 0
    for index, step in enumerate(steps, 1):
        total += step
        depth = max(depth, total - index)
    if depth > limits.max_depth:
        raise ShapeError(f"the answer nests lists and dicts {depth:,} levels deep; the grader reads at most "
                         f"{limits.max_depth} levels")
    if len(skeleton) != len(payload):
        longest = max(map(len, _STRING.findall(payload)), default=2) - 2
        if longest > limits.max_string_bytes:
            raise ShapeError(f"the answer holds a string of {longest:,} bytes; the grader reads strings of at most "
                             f"{limits.max_string_bytes:,} bytes")


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
