"""Tracebacks a student can act on: their own frames, the library frame that raised, no host or jail paths.

Runs inside the sandbox (probe children and the zygote); standard library only.
Three sources, one presentation (:func:`render`):

* an exception raised in the probe child (:func:`frames_of`);
* an exception raised in a DataLoader worker, which the loader re-raises in
  the probe with the worker's traceback as text after "Original Traceback"
  (:func:`split_worker_message`, :func:`parse_traceback`);
* a ``faulthandler`` dump of a process that hung, taken by the zygote when a
  probe's time limit hit (:func:`parse_dump`, :func:`strip_dumps`).

Shown: every frame in the student's files, named relative to the submission
(``collate.py``), and the innermost frame when it is a library's (the call that
raised), named from its package (``torch/nn/functional.py``). When there are
more than :data:`MAX_FRAMES` (a recursion), the first and the last are kept and
a line says how many were left out: the cut falls between frames.
"""

from __future__ import annotations

import linecache
import re
import traceback
from dataclasses import dataclass

#: Most frames shown; beyond it the middle ones are left out.
MAX_FRAMES = 12
HEAD_FRAMES = 3
WORKER_MARKER = "\nOriginal Traceback (most recent call last):\n"
_FRAME_LINE = re.compile(r'^ {2}File "(?P<path>[^"\n]{1,4096})", line (?P<line>\d{1,9})(?:, in | in )(?P<name>[^\n]{0,200})$')
_REPEATED = re.compile(r"^\s*\[Previous line repeated \d+ more times?\]$")
_DUMP_START = re.compile(r"^(?:Current thread|Thread) 0x[0-9a-f]+ \(most recent call first\):$|^Stack \(most recent call first\):$")
# Where a library's file path starts to mean something: below the last site-packages, the standard library's folder
# or the staged grader code (greedy, so that .../lib/python3.11/site-packages/ counts as site-packages).
_LIBRARY_ROOT = re.compile(r"^.*(?:/(?:site|dist)-packages/|/lib/python3\.\d+/|/jail/lib/)")


@dataclass(frozen=True)
class Frame:
    path: str  # as the process saw it
    line: int
    name: str
    code: str = ""


def frames_of(exc: BaseException) -> list[Frame]:
    """The frames of ``exc``'s traceback, outermost first, without their source lines (:func:`render` reads
    those of the frames it shows, so a traceback 100,000 frames deep costs no 100,000 file lookups). A recursion
    repeats its frames: each (code, line) is made into a :class:`Frame` once and that object repeated."""
    made: dict = {}
    frames = []
    for frame, lineno in traceback.walk_tb(exc.__traceback__):
        key = (frame.f_code, lineno)
        if (found := made.get(key)) is None:
            found = made[key] = Frame(frame.f_code.co_filename, lineno or 0, frame.f_code.co_name)
        frames.append(found)
    return frames


def split_worker_message(message: str) -> tuple[str, str] | None:
    """(the loader's own line, the worker's traceback text) when ``message`` wraps a worker's exception, else None."""
    head, marker, original = message.partition(WORKER_MARKER)
    return (head.strip(), original) if marker else None


def parse_traceback(text: str) -> tuple[list[Frame], str]:
    """The frames (outermost first) and the final exception line(s) of a formatted traceback."""
    frames: list[Frame] = []
    rest: list[str] = []
    for line in text.splitlines():
        if found := _FRAME_LINE.match(line):
            frames.append(Frame(found["path"], int(found["line"]), found["name"]))
            rest = []
        elif line.startswith("    ") and frames and not rest:
            if not frames[-1].code and line.strip().strip("^~ "):
                frames[-1] = Frame(frames[-1].path, frames[-1].line, frames[-1].name, line.strip())
        elif line.strip() and not _REPEATED.match(line):
            rest.append(line)
    return frames, "\n".join(rest)


def parse_dump(text: str) -> list[list[Frame]]:
    """The stacks of every ``faulthandler`` dump in ``text``, each outermost first (dumps list innermost first)."""
    stacks, current = [], None
    for line in text.splitlines():
        if _DUMP_START.match(line):
            current = []
            stacks.append(current)
        elif current is not None and (found := _FRAME_LINE.match(line)):
            current.insert(0, Frame(found["path"], int(found["line"]), found["name"]))
        elif current is not None and line.strip():
            current = None
    return stacks


def strip_dumps(text: str) -> str:
    """``text`` without its ``faulthandler`` dumps (they name host and jail paths; :func:`render` shows them)."""
    kept, inside = [], False
    for line in text.splitlines(keepends=True):
        if _DUMP_START.match(line.rstrip("\n")):
            inside = True
        elif inside and not _FRAME_LINE.match(line.rstrip("\n")):
            inside = bool(line.strip()) and line.startswith("  ")
        if not inside:
            kept.append(line)
    return "".join(kept)


def render(frames: list[Frame], student_dir: str, title: str = "Traceback (your code, innermost last):",
           *, only_with_student_frames: bool = False) -> str:
    """``title`` and the frames a student should see (see the module docstring), '' if none is worth showing
    (with ``only_with_student_frames``: also when no frame is the student's)."""
    prefix = student_dir.rstrip("/") + "/"
    shown = [f for f in frames if f.path.startswith(prefix)]
    if not shown and only_with_student_frames:
        return ""
    if frames and not frames[-1].path.startswith(prefix):
        shown.append(frames[-1])  # the library call that raised, or where the process waited
    if not shown:
        return ""
    if len(shown) > MAX_FRAMES:
        left_out = len(shown) - MAX_FRAMES
        shown = [*shown[:HEAD_FRAMES], None, *shown[HEAD_FRAMES + left_out:]]
    lines = [title]
    for frame in shown:
        if frame is None:
            lines.append(f"  ... {left_out} frames left out ...")
            continue
        lines.append(f'  File "{display_path(frame.path, prefix)}", line {frame.line}, in {frame.name}')
        if code := frame.code or linecache.getline(frame.path, frame.line).strip():
            lines.append(f"    {code[:300]}")
    return "\n".join(lines)


def display_path(path: str, student_prefix: str) -> str:
    """A file name as the student should read it: relative to the submission, or from its library's package."""
    if path.startswith(student_prefix):
        return path[len(student_prefix):]
    return _LIBRARY_ROOT.sub("", path) if _LIBRARY_ROOT.match(path) else path.rsplit("/", 1)[-1]
