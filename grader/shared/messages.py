"""The typed messages that travel between the sandbox's parts.

Three processes talk: the grading process (:mod:`grader.sandbox.host`), the
zygote inside the jail (:mod:`grader.inside.zygote`) and a probe child
(:mod:`grader.inside.child`).  Every message is one of the dataclasses
below, sent as ``{"type": <class name>, "body": <fields>}`` in a length-framed
JSON frame (:mod:`grader.shared.channel`).  :func:`decode` rebuilds the
dataclass and rejects unknown types, unknown fields and fields of the wrong
JSON type, so a forged or garbled frame fails loudly instead of half-working.

Only :class:`ProbeResult` carries data that a student's code can influence;
the zygote bounds it (:func:`ProbeResult.bounded`: every text field cut by
:func:`cut_text`, at most :data:`MAX_FLAGS` flags) when it reads the child's
frame, and the grading process bounds it again when it reads the zygote's:
neither trusts the cut made by the sender. A :class:`RunRequest` carries an
``id`` that its :class:`ProbeResult` repeats (``request_id``), so an answer
can never be taken for the answer to another request.
"""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass, field
from typing import Any

from grader.shared.common import exercise_of_probe

#: At most this many distinct integrity flags come back from one probe.
MAX_FLAGS = 24
#: Longest text of one flag field, in characters.
MAX_FLAG_CHARS = 200
#: At most this many clock marks come back from one probe, each of at most this many characters.
MAX_MARKS, MAX_MARK_CHARS = 64, 120
#: Longest text of each ProbeResult text field, in characters, as the receiving end cuts it.
#: The child cuts errors and tracebacks to 4,000 characters itself (at frame boundaries); these
#: are the backstop, a little above that, so an honest result is never cut twice.
#: The values of :attr:`ProbeResult.cause`: how a probe ended that the machine could have caused.
CAUSES = ("killed", "died")
TEXT_LIMITS = {"error": 5000, "error_type": 200, "traceback": 6000, "output": 4000}


class MessageError(ValueError):
    """A frame that is not one of the messages below, or has fields of the wrong type."""


class ShapeError(MessageError):
    """A frame whose JSON is over a limit of :class:`ShapeLimits` (found before any object is built)."""


@dataclass(frozen=True)
class ShapeLimits:
    """How large a frame's JSON may be in structure, checked on the raw bytes before it is decoded
    (:func:`grader.shared.channel.check_shape`), on every frame either end receives.

    The byte cap alone does not bound memory: 17 MB of ``[[[[...]]]]`` is 8 million lists,
    over half a gigabyte of Python objects, and what a check then does with them grows it
    further. With these limits a frame decodes to at most ``max_elements`` values, at most
    ``max_containers`` of them lists or dicts, nested at most ``max_depth`` deep, and no string
    longer than ``max_string_bytes`` (as encoded: an escape counts its bytes). An honest
    grading's largest frame is far below each of them (see grader/docs/bounded_frames.md).
    """

    max_depth: int = 32
    max_containers: int = 50_000
    max_elements: int = 500_000
    max_string_bytes: int = 256 << 10


#: The limits every frame is decoded under.
FRAME_SHAPE = ShapeLimits()
#: ``ProbeResult.error_type`` of a probe whose answer was refused unread (over a shape limit): the zygote that
#: refused a child's frame says so, and the grading process restarts the zygote.
FRAME_REFUSED = "FrameRefused"


def refused_frame_text(why: str) -> str:
    """The error of a probe whose answer was refused for ``why`` (a :class:`ShapeError`'s text), for the student."""
    return (f"{FRAME_REFUSED}: the grader refused the answer unread: {why}. Your code wrote to the grader's result "
            "pipe itself, or produced data far larger than the lab asks for")


@dataclass(frozen=True)
class Limits:
    """Per-process limits set in every probe child (see :mod:`grader.inside.zygote`)."""

    memory_mb: int = 4096
    max_processes: int = 128
    file_size_mb: int = 64
    cpu_seconds: int | None = None  # None: the probe's timeout + 5 s
    output_limit: int = 2000  # characters of stdout+stderr kept per probe
    result_cap: int = 16 << 20  # bytes of an encoded probe result


@dataclass(frozen=True)
class ZygoteConfig:
    """What the zygote needs to start; paths are as the zygote sees them."""

    lib_dir: str  # the staged grader code (first on sys.path)
    code_dir: str  # holds the package ``submission`` (second on sys.path)
    scratch_root: str  # per-probe scratch folders are made here
    capture_dir: str  # private: the probes' captured output
    preload: list[str]
    probe_modules: list[str]
    limits: Limits
    env: dict[str, str]  # the probes' whole environment (HOME/TMPDIR set per probe)
    uid: int | None = None  # probe children switch to this uid/gid (None: no switch)
    gid: int | None = None
    kernel_layers: bool = True  # apply Landlock and seccomp (grader.inside.layers)
    read_exec: list[str] = field(default_factory=list)  # Landlock: read and execute below these paths
    read_only: list[str] = field(default_factory=list)  # Landlock: read only
    read_write: list[str] = field(default_factory=list)  # Landlock: read and write, never execute
    write_quota_mb: int = 0  # most MB a probe may leave in the scratch folders and /dev/shm (0: no watch at all)


@dataclass(frozen=True)
class Ready:
    """The zygote's answer to its configuration: started, or why not."""

    ok: bool
    dropped: bool = False  # probe children run under ``ZygoteConfig.uid``
    preload_s: float = 0.0
    layers: dict[str, str] = field(default_factory=dict)  # the kernel's layers that held: {layer: what it applied}
    missing: dict[str, str] = field(default_factory=dict)  # {layer: why it did not hold}
    error: str = ""
    traceback: str = ""


@dataclass(frozen=True)
class RunRequest:
    """Run ``probe`` ("package.module:function") with ``args`` in a fresh child.

    ``id`` is unique per request of one sandbox; the answer repeats it.
    """

    id: int
    probe: str
    args: dict[str, Any]
    timeout: float


@dataclass(frozen=True)
class Exit:
    """Ask the zygote to kill everything below it and exit."""


@dataclass(frozen=True)
class Flag:
    """An integrity finding in a probe child.

    ``kind`` is "replaced" (a watched function was no longer the same object
    after the probe) or "hook" (the student's code tried to install a trace,
    profile or audit hook, which the sandbox blocks); ``name`` is what was
    replaced or tried; ``probe`` is the probe that saw it.
    """

    kind: str
    name: str
    probe: str

    @property
    def exercise(self) -> str:
        """The exercise of a ``grader.exercises.<exercise>.probe:function`` probe ("" for the shared probes)."""
        return exercise_of_probe(self.probe)

    def text(self) -> str:
        if self.kind == "hook":
            return f"tried to install a hook ({self.name}) during probe {self.probe}; the sandbox blocked it"
        return f"replaced {self.name} during probe {self.probe}"


@dataclass
class ProbeResult:
    """Outcome of one probe run.

    status: "ok" | "error" (the probe raised) | "timeout" | "crashed" (died
    without a result, or wrote garbage).  ``data`` is the JSON value the
    probe returned (None unless ok); ``error`` is "ExcType: message" for
    "error" and a description of the death for "crashed"/"timeout";
    ``error_type`` and ``traceback`` are set for "error".  ``output`` is the
    child's stdout+stderr, cut to the output limit.  ``flags`` are integrity
    findings.  ``rss_growth_mb`` is measured by the zygote, outside the
    child: the child's peak resident memory (its own and its reaped
    descendants', from wait4) minus the zygote's when it forked the child.
    ``request_id`` is the ``id`` of the :class:`RunRequest` it answers, set
    by the zygote (whatever the child wrote). ``marks`` are the lines the
    child wrote on its clock pipe, ``[seconds since the fork, line]``, each
    stamped by the zygote's clock when it read the line (whatever the child
    wrote in its own frame): a time the child's code cannot change, of a
    moment the child chose.

    ``cause`` says, as a word and never as text to match, whether the
    machine could have caused this end (grader.engine.confirm): "killed"
    (ended by SIGKILL, not by the zygote's own timeout: the out-of-memory
    killer picks by size, a neighbour's pressure included), "died" (ended
    by another signal or exit without a result), or "". The zygote sets it
    for the probe's own process; for a DataLoader worker the probe's own
    loader call sets it from the worker's exit code
    (:mod:`grader.inside.loader_deaths`). A timeout is ``status`` "timeout",
    set from the zygote's clock.
    """

    status: str
    data: Any = None
    error: str = ""
    error_type: str = ""
    traceback: str = ""
    output: str = ""
    duration_s: float = 0.0
    flags: list[Flag] = field(default_factory=list)
    rss_growth_mb: float = 0.0
    request_id: int = 0
    marks: list = field(default_factory=list)
    cause: str = ""

    @property
    def ok(self) -> bool:
        return self.status == "ok"

    def bounded(self) -> "ProbeResult":
        """This result with every text field cut to :data:`TEXT_LIMITS` (:func:`cut_text`) and
        at most :data:`MAX_FLAGS` distinct flags of bounded length."""
        seen: dict[Flag, None] = {}
        for flag in self.flags:
            short = Flag(*(str(part)[:MAX_FLAG_CHARS] for part in (flag.kind, flag.name, flag.probe)))
            seen.setdefault(short, None)
            if len(seen) >= MAX_FLAGS:
                break
        texts = {name: cut_text(getattr(self, name), limit) for name, limit in TEXT_LIMITS.items()}
        marks = [[float(m[0]), m[1][:MAX_MARK_CHARS]] for m in (self.marks if isinstance(self.marks, list) else [])[:MAX_MARKS]
                 if isinstance(m, list) and len(m) == 2 and isinstance(m[0], (int, float)) and not isinstance(m[0], bool)
                 and isinstance(m[1], str)]
        cause = self.cause if self.cause in CAUSES else ""
        return dataclasses.replace(self, flags=list(seen), marks=marks, cause=cause, **texts)


def cut_text(text: str, limit: int) -> str:
    """``text`` if it has at most ``limit`` characters, else its head and tail around a note saying
    how many characters were cut (never more than ``limit`` characters in all).

    The cuts fall on line boundaries where a line ends in the outer half of the kept part, and
    the tail is kept because the end of a traceback (the innermost frame, the error) matters most.
    Linear in ``len(text)``.
    """
    text = text if isinstance(text, str) else str(text)
    if len(text) <= limit:
        return text
    keep = max(0, limit - 64) // 2
    head, tail = text[:keep], text[len(text) - keep:] if keep else ""
    if (newline := head.rfind("\n")) >= keep // 2:
        head = head[:newline]
    if 0 <= (newline := tail.find("\n")) < keep // 2:
        tail = tail[newline + 1:]
    note = f"[... {len(text) - len(head) - len(tail):,} characters cut by the grader ...]"
    return f"{head}\n{note}\n{tail}"[:limit] if keep else note[:limit]


MESSAGES = {cls.__name__: cls for cls in (Limits, ZygoteConfig, Ready, RunRequest, Exit, Flag, ProbeResult)}
_JSON_TYPES = {"str": str, "int": int, "float": (int, float), "bool": bool, "dict": dict, "list": list}


def encode(message: Any) -> dict[str, Any]:
    """The JSON-ready form of a message (nested messages included)."""
    body = {}
    for f in dataclasses.fields(message):
        value = getattr(message, f.name)
        if dataclasses.is_dataclass(value):
            value = encode(value)
        elif isinstance(value, list) and value and dataclasses.is_dataclass(value[0]):
            value = [encode(item) for item in value]
        body[f.name] = value
    return {"type": type(message).__name__, "body": body}


def decode(frame: Any, *expected: type) -> Any:
    """Rebuild a message from :func:`encode`'s form; raise :class:`MessageError` if it is not one of ``expected``."""
    if not (isinstance(frame, dict) and set(frame) == {"type", "body"} and isinstance(frame["body"], dict)):
        raise MessageError("not a message frame")
    cls = MESSAGES.get(frame["type"]) if isinstance(frame["type"], str) else None
    if cls is None or (expected and cls not in expected):
        raise MessageError(f"unexpected message type {frame['type']!r}")
    fields = {f.name: f for f in dataclasses.fields(cls)}
    body = frame["body"]
    if set(body) - set(fields):
        raise MessageError(f"{cls.__name__}: unknown fields {sorted(set(body) - set(fields))}")
    values = {}
    for name, value in body.items():
        values[name] = _field_value(cls, name, str(fields[name].type), value)
    try:
        return cls(**values)
    except TypeError as exc:
        raise MessageError(f"{cls.__name__}: {exc}") from None


def _field_value(cls: type, name: str, type_text: str, value: Any) -> Any:
    """Check one field against its annotation (as text, e.g. "int | None", "list[Flag]")."""
    if value is None and "None" in type_text:
        return None
    if type_text == "Any":
        return value
    base = type_text.split("|")[0].strip()
    if base in MESSAGES:
        return decode(value, MESSAGES[base])
    if base.startswith("list[") and base[5:-1] in MESSAGES:
        if not isinstance(value, list):
            raise MessageError(f"{cls.__name__}.{name}: expected a list")
        return [decode(item, MESSAGES[base[5:-1]]) for item in value]
    python_type = _JSON_TYPES.get(base.split("[")[0])
    if python_type is None or not isinstance(value, python_type) or (python_type is int and isinstance(value, bool)):
        raise MessageError(f"{cls.__name__}.{name}: expected {type_text}, got {type(value).__name__}")
    if base.startswith("list[str]") and not all(isinstance(v, str) for v in value):
        raise MessageError(f"{cls.__name__}.{name}: expected a list of strings")
    if base.startswith("dict[str, str]") and not all(isinstance(v, str) for v in value.values()):
        raise MessageError(f"{cls.__name__}.{name}: expected strings")
    return value
