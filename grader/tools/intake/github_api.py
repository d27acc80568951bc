"""Asking GitHub's API through ``gh api``, and checking that each answer has the shape GitHub documents.

Contracts
---------
* :func:`gh_api` runs ``gh api PATH`` (the token comes from ``GH_TOKEN``)
  with a timeout, tried at most :data:`GH_ATTEMPTS` times and only again
  after a transient failure (a timeout, an HTTP 5xx); it returns the JSON,
  or with ``pages`` the items of every page joined.
* The ``expect_*`` functions return what they are given when it has the
  documented shape (an object with keys of given types, a list, a commit id
  of 40 hex digits, a time with a zone) and raise :class:`AnswerError`
  naming the path and what was wrong otherwise. :func:`ref_path` makes a
  branch or tag name a safe part of an API path (percent-encoded), refusing
  a name git itself would refuse.
* A bad answer or a failed ``gh`` raises AnswerError and nothing else; the
  caller makes it one repository's error, never the whole record's.
"""

from __future__ import annotations

import json
import re
import subprocess
import time
from datetime import datetime
from typing import Any
from urllib.parse import quote

GH_TIMEOUT_S = 60
GH_ATTEMPTS = 3
GH_RETRY_PAUSE_S = 3.0
TRANSIENT = re.compile(r"HTTP 5\d\d|timed? ?out|connection reset|unexpected EOF|TLS handshake", re.IGNORECASE)
SHA = re.compile(r"[0-9a-f]{40}")
# What git allows in a ref name, as far as a path of the API cares: no control characters, space, ~^:?*[\,
# no "..", "@{", "//", no leading or trailing "/" or ".", no ".lock" ending.
BAD_REF = re.compile(r"[\x00-\x20\x7f~^:?*\[\\]|\.\.|@\{|//|^[/.]|[/.]$|\.lock$|/\.")


class AnswerError(RuntimeError):
    """GitHub's answer does not have the documented shape (or gh failed); the message says which and where."""


def parse_time(text: str) -> datetime:
    """An ISO 8601 time with a zone ("2026-12-01T23:59:00Z" or "+01:00"); ValueError otherwise."""
    if not isinstance(text, str):
        raise ValueError(f"{text!r} is not a time")
    moment = datetime.fromisoformat(text.replace("Z", "+00:00"))
    if moment.tzinfo is None:
        raise ValueError(f"{text!r} has no time zone; write it like 2026-12-01T23:59:00+01:00")
    return moment


def expect_object(answer: Any, path: str, **fields: type) -> dict:
    """``answer`` if it is an object whose ``fields`` have those types; AnswerError otherwise."""
    if not isinstance(answer, dict):
        raise AnswerError(f"GitHub's answer to {path} is {_kind(answer)}, not an object")
    for key, kind in fields.items():
        if not isinstance(answer.get(key), kind):
            raise AnswerError(f"GitHub's answer to {path} has no {key} of type {kind.__name__} (got {_kind(answer.get(key))})")
    return answer


def expect_list(answer: Any, path: str) -> list:
    if not isinstance(answer, list):
        raise AnswerError(f"GitHub's answer to {path} is {_kind(answer)}, not a list")
    return answer


def expect_sha(value: Any, path: str) -> str:
    if not isinstance(value, str) or not SHA.fullmatch(value):
        raise AnswerError(f"GitHub's answer to {path} has a commit id that is not 40 hex digits: {str(value)[:60]!r}")
    return value


def expect_time(value: Any, path: str) -> str:
    try:
        parse_time(value)
    except ValueError:
        raise AnswerError(f"GitHub's answer to {path} has a time that is not ISO 8601 with a zone: {str(value)[:60]!r}") from None
    return value


def _kind(value: Any) -> str:
    return {dict: "an object", list: "a list", str: "a string", type(None): "null"}.get(type(value), type(value).__name__)


def ref_path(name: str) -> str:
    """A branch or tag name as a path of the API (percent-encoded, slashes kept); AnswerError for a name git forbids."""
    if not isinstance(name, str) or not name or BAD_REF.search(name):
        raise AnswerError(f"{str(name)[:80]!r} is not a ref name git allows")
    return quote(name, safe="/")


def gh_api(path: str, *, pages: bool = False) -> Any:
    """``gh api PATH`` as JSON (the token comes from GH_TOKEN); ``pages``: every page of a list, joined.

    AnswerError when gh fails (after up to GH_ATTEMPTS tries for a transient
    failure) or answers with something that is not JSON (or, with ``pages``, not pages of lists).
    """
    paging = ["--paginate", "--slurp"] if pages else []
    message = ""
    for attempt in range(GH_ATTEMPTS):
        if attempt:
            time.sleep(GH_RETRY_PAUSE_S * attempt)
        try:
            done = subprocess.run(["gh", "api", *paging, "-H", "Accept: application/vnd.github+json", path],
                                  capture_output=True, text=True, timeout=GH_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            message = f"gh api {path}: no answer within {GH_TIMEOUT_S} s"
            continue
        if done.returncode == 0:
            break
        message = f"gh api {path}: {done.stderr.strip()[-300:] or f'exit code {done.returncode}'}"
        if not TRANSIENT.search(done.stderr):
            raise AnswerError(message)
    else:
        raise AnswerError(message + (f" ({GH_ATTEMPTS} attempts)" if GH_ATTEMPTS > 1 else ""))
    try:
        data = json.loads(done.stdout or "null")
    except ValueError:
        raise AnswerError(f"GitHub's answer to {path} is not JSON: {done.stdout[:80]!r}") from None
    if pages:
        return [item for page in expect_list(data, path) for item in expect_list(page, path)]
    return data
