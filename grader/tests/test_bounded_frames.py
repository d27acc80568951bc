"""What a child sends back is bounded in shape as well as in bytes (grader/docs/DESIGN.md principle 5).

:func:`grader.shared.channel.check_shape` measures a frame's nesting depth,
containers, values and string lengths on its bytes, before ``json.loads``
builds anything; every frame either end receives goes through it. The
hostile corpus entry ``forged_nested_frame`` proves it end to end (the
check says why it failed, the others keep their verdicts, the grading
process's peak memory stays within its bound); these are the unit's edges.
"""

from __future__ import annotations

import json
import os
import resource
import time

import pytest

from grader.shared import channel
from grader.shared.channel import ChannelError, check_shape
from grader.shared.messages import FRAME_SHAPE, ProbeResult, ShapeError, ShapeLimits, encode

SMALL = ShapeLimits(max_depth=4, max_containers=10, max_elements=50, max_string_bytes=8)


def _frame(data) -> bytes:
    return json.dumps(encode(ProbeResult("ok", data=data))).encode()


@pytest.mark.parametrize("data, limit", [
    ([[[[[1]]]]], "levels deep"),
    ([[]] * 11, "lists and dicts"),
    (list(range(60)), "values"),
    ("123456789", "string of 9 bytes"),
    ({"123456789": 1}, "string of 9 bytes"),
])
def test_a_frame_over_a_limit_is_refused_saying_which(data, limit):
    with pytest.raises(ShapeError, match=limit):
        check_shape(json.dumps(data).encode(), SMALL)


@pytest.mark.parametrize("data", [
    [[[1]]], [[]] * 9, list(range(40)), "12345678", {"a": "\"]]\\\\", "c": ["[[[[[[", "{{{{{{"]},
])
def test_a_frame_within_the_limits_decodes_as_json_does(data):
    payload = json.dumps(data).encode()
    check_shape(payload, SMALL)  # brackets and escapes inside strings are not structure
    assert json.loads(payload) == data


def test_an_honest_result_round_trips_and_a_forged_one_says_why():
    honest = ProbeResult("ok", data={"batches": [[[1, 2, 3], [4, 5, 0]]] * 100, "note": "x\"y\\z"}, error="")
    assert channel.parse(_frame(honest.data), ProbeResult).data == honest.data
    forged = b'{"type": "ProbeResult", "body": {"status": "ok", "data": ' + b"[" * 40 + b"]" * 40 + b"}}"
    with pytest.raises(ChannelError, match=f"at most {FRAME_SHAPE.max_depth} levels") as caught:
        channel.parse(forged, ProbeResult)
    assert isinstance(caught.value.__cause__, ShapeError)


def test_the_nested_frame_is_refused_in_linear_time_without_building_it():
    """The issue's frame: 8 million nested empty lists in 16 MB, refused in well under a second and a few copies of
    its bytes (decoding it took the grading process from 58 MB to 3.8 GB)."""
    chain = b"[" * 500 + b"]" * 500
    payload = b'{"type": "ProbeResult", "body": {"status": "ok", "data": [' + b",".join([chain] * 16000) + b"]}}"
    before = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss
    started = time.process_time()
    with pytest.raises(ChannelError, match="lists and dicts"):
        channel.parse(payload, ProbeResult)
    grown_mb = (resource.getrusage(resource.RUSAGE_SELF).ru_maxrss - before) / 1024
    print(f"refused in {time.process_time() - started:.2f} s CPU, peak grew {grown_mb:.0f} MB")
    assert grown_mb < 4 * len(payload) / 2**20, "more than a few copies of the bytes"


def test_a_frame_over_a_limit_read_from_a_pipe_is_a_channel_error():
    read_fd, write_fd = os.pipe()
    try:
        os.write(write_fd, channel.frame(b"[" * 100 + b"]" * 100))
        with pytest.raises(ChannelError, match="levels deep"):
            channel.receive(read_fd, time.monotonic() + 5, 1 << 20)
    finally:
        os.close(read_fd)
        os.close(write_fd)
