"""Code similarity across a class, per exercise, with copydetect (for ``python -m grader review``).

copydetect (MIT, on PyPI, offline) tokenizes each file (names become one
token, so renamed variables change nothing), fingerprints it by winnowing
k-grams and subtracts the fingerprints of the boilerplate: the generated
stubs (``exercises/``), and the reference when one is given, so a pair is
code two students share beyond what they were handed and what the
reference says. Each student's file is compared with every classmate's file
of the same exercise; a pair's similarity is the larger of its two shares
(the fraction of one file's tokens found in the other), so a small file
copied into a large one still stands out. Separately, each file is compared
with the reference itself (with only the stubs subtracted).
"""

from __future__ import annotations

import os
import shutil
import tempfile
from dataclasses import dataclass
from pathlib import Path

from grader.tools.class_grading.offline_html import make_offline

#: copydetect's noise threshold (its default): matches shorter than 25 tokens are noise. The guarantee threshold
#: is the same, so every 25-gram is a fingerprint: winnowing would choose among them by Python's string hash,
#: which differs from process to process, and the same class would get different similarities from run to run.
NOISE_TOKENS = 25
GUARANTEE_TOKENS = NOISE_TOKENS
#: The name the reference goes by in the pairs.
REFERENCE = "(reference)"


@dataclass(frozen=True)
class Pair:
    exercise: str
    first: str
    second: str
    share_first: float   # fraction of first's tokens found in second
    share_second: float
    tokens: int          # tokens in common

    @property
    def similarity(self) -> float:
        return max(self.share_first, self.share_second)


def _copydetect():
    os.environ.setdefault("MPLBACKEND", "Agg")  # the HTML report draws with matplotlib: no display here
    try:
        import copydetect
    except ImportError:
        raise RuntimeError("the review needs copydetect: pip install -r requirements-instructor.txt") from None
    return copydetect


def _detector(copydetect, tests: list[Path], refs: list[Path], boilerplate: list[Path], html: Path | None, threshold: float):
    detector = copydetect.CopyDetector(extensions=["py"], noise_t=NOISE_TOKENS, guarantee_t=GUARANTEE_TOKENS,
                                       display_t=threshold, autoopen=False, silent=True, truncate=True,
                                       out_file=str(html or "report.html"))
    for path in tests:
        detector.add_file(str(path), "test")
    for path in refs:
        detector.add_file(str(path), "ref")
    for path in boilerplate:
        detector.add_file(str(path), "boilerplate")
    detector.run()
    return detector


def _pairs(detector, exercise: str, owner: dict[str, str]) -> list[Pair]:
    matrix, tokens = detector.similarity_matrix, detector.token_overlap_matrix
    seen, pairs = set(), []
    for i, test in enumerate(detector.test_files):
        for j, ref in enumerate(detector.ref_files):
            if matrix.size == 0 or matrix[i, j, 0] < 0 or test == ref:
                continue
            key = frozenset((test, ref))
            if key in seen:
                continue
            seen.add(key)
            a, b = (owner[test], float(matrix[i, j, 0])), (owner[ref], float(matrix[i, j, 1]))
            if b[0] != REFERENCE and (a[0] == REFERENCE or b[0] < a[0]):
                a, b = b, a  # students in name order, the reference second
            (first, share_first), (second, share_second) = a, b
            pairs.append(Pair(exercise, first, second, share_first, share_second, int(tokens[i, j])))
    return pairs


def compare_class(files: dict[str, dict[str, bytes]], boilerplate: dict[str, list[Path]], reference: dict[str, Path],
                  html_dir: Path, threshold: float) -> tuple[list[Pair], list[Pair], list[str]]:
    """(pairs of students, students against the reference, notes), every pair compared, sorted by similarity.

    ``files``: {exercise: {student: source}}; ``boilerplate``: {exercise: stub files};
    ``reference``: {exercise: the reference's file} (may be empty). Writes one copydetect
    HTML report per exercise with two students or more, ``html_dir/<exercise>.html``, showing
    the pairs above ``threshold``. An exercise copydetect fails on is a note, and the others go on.
    """
    copydetect = _copydetect()
    html_dir.mkdir(parents=True, exist_ok=True)
    pairs, to_reference, notes = [], [], []
    with tempfile.TemporaryDirectory(prefix="grader-review-") as tmp:
        for exercise, sources in files.items():
            try:
                found = _compare_exercise(copydetect, Path(tmp), exercise, sources, boilerplate.get(exercise, []),
                                          reference.get(exercise), html_dir, threshold)
            except Exception as exc:  # one exercise's files never stop the review of the others
                notes.append(f"similarity of {exercise}: copydetect failed ({type(exc).__name__}: {str(exc)[:200]})")
                continue
            pairs += found[0]
            to_reference += found[1]
    order = lambda p: (-p.similarity, p.exercise, p.first, p.second)  # noqa: E731
    return sorted(pairs, key=order), sorted(to_reference, key=order), notes


def _compare_exercise(copydetect, tmp: Path, exercise: str, sources: dict[str, bytes], stubs: list[Path],
                      ref: Path | None, html_dir: Path, threshold: float) -> tuple[list[Pair], list[Pair]]:
    """The pairs of one exercise's files, and each file against the reference (written under ``tmp``)."""
    pairs, to_reference = [], []
    folder = tmp / exercise
    owner, paths = {}, []
    for student, source in sources.items():
        path = folder / student / f"{exercise}.py"
        path.parent.mkdir(parents=True)
        path.write_bytes(source)
        owner[str(path)] = student
        paths.append(path)
    if len(paths) >= 2:
        html = html_dir / f"{exercise}.html"
        detector = _detector(copydetect, paths, paths, stubs + ([ref] if ref else []), html, threshold)
        pairs += _pairs(detector, exercise, owner)
        detector.generate_html_report()
        html.write_text(make_offline(html.read_text(encoding="utf-8")), encoding="utf-8")  # no CDN: the review is offline
    if ref is not None and paths:
        copied = tmp / "reference" / exercise / f"{exercise}.py"
        copied.parent.mkdir(parents=True)
        shutil.copyfile(ref, copied)
        detector = _detector(copydetect, paths, [copied], stubs, None, threshold)
        owner[str(copied)] = REFERENCE
        to_reference += _pairs(detector, exercise, owner)
    return pairs, to_reference
