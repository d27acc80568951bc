"""``python -m grader review SUBMISSIONS --out DIR``: the instructor's private review of a class (grader/docs/DESIGN.md, principle 8).

What the grader cannot decide goes to a person: (a) code similarity across
the class, per exercise (:mod:`grader.tools.class_grading.similarity`: copydetect, the
stubs of ``exercises/`` as boilerplate, and ``--reference`` subtracted too
when given); (b) per student, the constructs that have no place in an
honest answer (:mod:`grader.tools.class_grading.constructs`), each with file and line;
(c) the integrity flags the grading raised (``--results``: a batch or merge
output folder). It informs; it changes no score.

SUBMISSIONS holds one folder per student, as ``batch`` reads them (the five
files, or an ``exercises/`` folder with them), e.g. what ``batch --files-out``
wrote. Files are read as regular files only (never through a link), at most
1 MB each. DIR then holds ``review.md`` (the report), ``pairs.csv`` (pairs at
or above ``--threshold``), ``reference.csv`` (students at or above it against
the reference), ``constructs.csv``, ``flags.csv`` and ``similarity/<exercise>.html``
(copydetect's report). Exit status 0 when the review is written, 2 for bad input.

Each student's review is bounded (grader/docs/DESIGN.md, principle 8: one file cannot stop
the review of the class): the scan of a student's files has a time budget
(``--student-budget``, :data:`STUDENT_BUDGET_S`; the parse of a 1 MB file
counts against it), at most :data:`MAX_ROWS_PER_STUDENT` constructs are listed
per student (and :data:`~grader.tools.class_grading.constructs.MAX_PER_CONSTRUCT` per
construct and file), and copydetect sees at most the first
:data:`SIMILARITY_BYTES` of each file. A student over any of them is listed
under "Over a limit", with what was cut; the report is written for the whole
class whatever one student's files hold.
"""

from __future__ import annotations

import csv
import io
import os
import re
import stat
import time
from pathlib import Path

from grader.paths import REPO
from grader.registry import CONTRACT_FILES, EXERCISES, exercise
from grader.report_files import write_text
from grader.tools.class_grading.constructs import BLIND_SPOTS, scan_source
from grader.writers.gradebook import _csv_cell
from grader.writers.markdown import md_inline

MAX_FILE_BYTES = 1 << 20
#: Seconds of scanning per student (all five files, parsing included).
STUDENT_BUDGET_S = 60.0
#: The most constructs listed per student; the rest are counted.
MAX_ROWS_PER_STUDENT = 100
#: The most bytes of one file copydetect compares (the largest honest answer is a few KB).
SIMILARITY_BYTES = 64 << 10
DEFAULT_THRESHOLD = 0.5
#: The most rows of a table in review.md (the CSVs hold every row).
MD_ROWS = 200
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]{0,99}")


class ReviewError(ValueError):
    """Bad input to review; the message says what to fix."""


def read_file(path: Path) -> bytes | str:
    """The bytes of the regular file ``path`` (not followed through a link), or why it cannot be read."""
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK)
    except FileNotFoundError:
        return "missing"
    except OSError as exc:
        return "a symbolic link" if os.path.islink(path) else f"unreadable ({exc.strerror})"
    with os.fdopen(fd, "rb") as fh:
        info = os.fstat(fh.fileno())
        if not stat.S_ISREG(info.st_mode):
            return "not a regular file"
        if info.st_size > MAX_FILE_BYTES:
            return f"larger than {MAX_FILE_BYTES >> 20} MB"
        return fh.read(MAX_FILE_BYTES + 1)[:MAX_FILE_BYTES]


def read_class(submissions: Path | list[Path]) -> tuple[dict[str, dict[str, bytes]], list[str]]:
    """({student: {file name: bytes}}, notes on what could not be read), over one folder of students or several
    (the slices of a class, as ``merge`` takes them); a student found twice is an error that names both folders."""
    folders = [submissions] if isinstance(submissions, Path) else list(submissions)
    for given in folders:
        if not given.is_dir():
            raise ReviewError(f"submissions folder {given} does not exist or is not a folder")
    students, notes, seen = {}, [], {}
    for folder in sorted((f for given in folders for f in given.iterdir()), key=lambda f: f.name):
        if folder.name.startswith("."):
            continue
        if folder.name in seen:
            raise ReviewError(f"the student {folder.name} is in {seen[folder.name]} and in {folder.parent}: "
                              "review each student once")
        seen[folder.name] = folder.parent
        if folder.is_symlink() or not folder.is_dir():
            notes.append(f"{folder.name}: not a folder (or a link): not reviewed")
            continue
        base = folder / "exercises" if (folder / "exercises").is_dir() and not (folder / "exercises").is_symlink() else folder
        files = {}
        for name in CONTRACT_FILES:
            data = read_file(base / name)
            if isinstance(data, bytes):
                files[name] = data
            elif data != "missing":
                notes.append(f"{folder.name}/{name}: {data}: not reviewed")
        students[folder.name] = files
    if not students:
        raise ReviewError(f"{', '.join(map(str, folders))} holds no student folders (one folder per student expected)")
    return students, notes


def read_flags(results: Path) -> list[tuple[str, str]]:
    """(student, flag) for every integrity flag in the reports of a batch or merge output folder, and every grader error."""
    from grader.tools.class_grading.class_reports import BatchError, collect_rows

    try:
        rows = collect_rows([results])
    except BatchError as exc:
        raise ReviewError(str(exc)) from None
    flags = []
    for student, result, error in rows:
        if result is None:
            flags.append((student, error if error.startswith("not graded") else f"not graded: {error}"))
        else:
            flags += [(student, flag) for flag in result.integrity_flags]
    return flags


def labels(students) -> dict[str, str]:
    """{student: a name safe in a path and in copydetect's HTML}: the name itself, or student-N."""
    return {s: s if SAFE_NAME.fullmatch(s) else f"student-{i}" for i, s in enumerate(sorted(students), start=1)}


def scan_student(files: dict[str, bytes], budget_s: float) -> tuple[list, list[str], list[str]]:
    """(findings, notes, the limits it went over) for one student's files, within ``budget_s`` seconds of scanning."""
    deadline = time.monotonic() + budget_s
    found, notes, over = [], [], []
    for name, source in files.items():
        try:
            findings, note = scan_source(source, name, deadline=deadline)
        except Exception as exc:  # one file never stops the review of the class
            findings, note = [], f"{name} could not be scanned ({type(exc).__name__})"
        found += findings
        if note:
            notes.append(note)
        if "over the time budget" in note:
            over.append(f"the scan's time budget of {budget_s:g} s ({note})")
            break
    more = [n for n in notes if "not listed" in n]
    if more:
        over.append("the output cap per construct: " + "; ".join(more))
    if len(found) > MAX_ROWS_PER_STUDENT:
        over.append(f"the output cap of {MAX_ROWS_PER_STUDENT} constructs per student: {len(found) - MAX_ROWS_PER_STUDENT} "
                    f"more not listed")
        found = found[:MAX_ROWS_PER_STUDENT]
    return found, notes, over


def review(submissions: Path | list[Path], out: Path, *, threshold: float = DEFAULT_THRESHOLD, results: Path | None = None,
           boilerplate: list[Path] | None = None, reference: Path | None = None,
           student_budget_s: float = STUDENT_BUDGET_S) -> dict:
    """Write the review of the class in ``submissions`` (a folder of students, or several) into ``out``; return what
    it found (for the tests)."""
    from grader.tools.class_grading.similarity import compare_class

    started = time.monotonic()
    for folder in [*(boilerplate or []), *([reference] if reference else [])]:
        if not folder.is_dir():
            raise ReviewError(f"{folder} does not exist or is not a folder")
    flags = read_flags(results) if results is not None else []
    students, notes = read_class(submissions)
    label = labels(students)
    constructs, unscanned, over = [], [], []
    for student, files in students.items():
        found, scan_notes, limits = scan_student(files, student_budget_s)
        constructs += [(student, f) for f in found]
        unscanned += [f"{student}: {note}" for note in scan_notes if "not listed" not in note]
        over += [(student, limit) for limit in limits]
        cut = sorted(name for name, source in files.items() if len(source) > SIMILARITY_BYTES)
        if cut:
            over.append((student, f"the similarity's cap: only the first {SIMILARITY_BYTES >> 10} KB of {', '.join(cut)} compared"))
    modules = {e: exercise(e).module for e in EXERCISES}
    per_exercise = {e: {label[s]: files[m][:SIMILARITY_BYTES] for s, files in students.items() if m in files}
                    for e, m in modules.items()}
    stubs = {e: [p / m for p in (boilerplate or [REPO / "exercises"]) if (p / m).is_file()] for e, m in modules.items()}
    refs = {e: reference / m for e, m in modules.items() if reference and (reference / m).is_file()}
    try:
        pairs, to_reference, failed = compare_class(per_exercise, stubs, refs, out / "similarity", threshold)
    except RuntimeError as exc:
        raise ReviewError(str(exc)) from None
    unscanned += failed
    named = {v: k for k, v in label.items()}
    listed = [p for p in pairs if p.similarity >= threshold]
    close = [p for p in to_reference if p.similarity >= threshold]
    seconds = round(time.monotonic() - started, 1)
    _write(out, listed, close, constructs, flags, notes + unscanned, named, threshold, len(students), seconds, over,
           with_reference=reference is not None)
    return {"pairs": listed, "all_pairs": pairs, "reference": close, "constructs": constructs, "flags": flags,
            "notes": notes + unscanned, "names": named, "seconds": seconds, "over": over}


def _csv(header: list[str], rows) -> str:
    buf = io.StringIO()
    writer = csv.writer(buf, lineterminator="\n")
    writer.writerow(header)
    writer.writerows([[_csv_cell(v) if isinstance(v, str) else v for v in row] for row in rows])
    return buf.getvalue()


def _write(out: Path, pairs, close, constructs, flags, notes, named, threshold, count, seconds, over=(), *,
           with_reference: bool = False) -> None:
    name = lambda label: named.get(label, label)  # noqa: E731
    write_text(out / "pairs.csv", _csv(["exercise", "student_a", "student_b", "similarity", "share_a", "share_b", "tokens"],
               [(p.exercise, name(p.first), name(p.second), f"{p.similarity:.3f}", f"{p.share_first:.3f}",
                 f"{p.share_second:.3f}", p.tokens) for p in pairs]))
    write_text(out / "reference.csv", _csv(["exercise", "student", "share_of_student", "share_of_reference", "tokens"],
               [(p.exercise, name(p.first), f"{p.share_first:.3f}", f"{p.share_second:.3f}", p.tokens) for p in close]))
    write_text(out / "constructs.csv", _csv(["student", "file", "line", "construct", "code"],
               [(s, f.file, f.line, f.construct, f.code) for s, f in constructs]))
    write_text(out / "flags.csv", _csv(["student", "flag"], flags))
    md = ["# Review of the class (private: for the instructor)", "",
          f"{count} students reviewed in {seconds} s. The review informs a person; it changes no score. Similarity is "
          f"copydetect's (the stubs subtracted as boilerplate{', and the reference' if with_reference else ''}): the larger "
          "share of either file found in the other; "
          f"pairs at or above {threshold:g} are listed (pairs.csv), with the copied code in similarity/<exercise>.html.", "",
          "## Similar pairs", ""]
    md += (["| Exercise | Student | Student | Similarity | Shares | Tokens |", "| --- | --- | --- | ---: | ---: | ---: |"]
           + [f"| {md_inline(p.exercise)} | {md_inline(name(p.first))} | {md_inline(name(p.second))} | {p.similarity:.2f} | "
              f"{p.share_first:.2f} / {p.share_second:.2f} | {p.tokens} |" for p in pairs[:MD_ROWS]]
           + (["", f"{len(pairs) - MD_ROWS} more in pairs.csv."] if len(pairs) > MD_ROWS else [])
           ) if pairs else ["None at or above the threshold."]
    md += ["", "## Closest to the reference", ""]
    md += (["| Exercise | Student | Share of the student's file | Tokens |", "| --- | --- | ---: | ---: |"]
           + [f"| {md_inline(p.exercise)} | {md_inline(name(p.first))} | {p.share_first:.2f} | {p.tokens} |" for p in close[:MD_ROWS]]
           + (["", f"{len(close) - MD_ROWS} more in reference.csv."] if len(close) > MD_ROWS else [])
           ) if close else ["No comparison with a reference, or none at or above the threshold."]
    md += ["", "## Constructs with no place in an honest answer", "", BLIND_SPOTS, ""]
    md += (["| Student | File:line | Construct | Code |", "| --- | --- | --- | --- |"]
           + [f"| {md_inline(s)} | {md_inline(f.file)}:{f.line} | {md_inline(f.construct)} | `{md_inline(f.code)[:120]}` |"
              for s, f in constructs]) if constructs else ["None found."]
    md += ["", "## Integrity flags the grading raised", ""]
    md += [f"- {md_inline(s)}: {md_inline(flag)}" for s, flag in flags] if flags else ["None (or no --results given)."]
    md += ["", "## Over a limit (reviewed in part: look at these students' files yourself)", ""]
    md += [f"- {md_inline(s)}: over {md_inline(limit)}" for s, limit in over] if over else ["None."]
    if notes:
        md += ["", "## Not reviewed", ""] + [f"- {md_inline(n)}" for n in notes]
    write_text(out / "review.md", "\n".join(md) + "\n")


def threshold_value(text: str) -> float:
    import argparse

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"threshold must be a number from 0 to 1, got {text!r}") from None
    if not 0.0 <= value <= 1.0:
        raise argparse.ArgumentTypeError(f"threshold must be from 0 to 1, got {value:g}")
    return value


def budget_value(text: str) -> float:
    import argparse

    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"student budget must be a number of seconds, got {text!r}") from None
    if not 0.1 <= value <= 3600:
        raise argparse.ArgumentTypeError(f"student budget must be from 0.1 to 3600 seconds, got {value:g}")
    return value
