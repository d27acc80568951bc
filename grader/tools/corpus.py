"""The answer corpus: realistic wrong and differently-right submissions, one exercise file each.

``grader/tests/corpus/wrong/<exercise>/<name>.py`` is a complete module
with a mistake students really make; its first line is ``# WRONG: <what is
wrong>``. ``grader/tests/corpus/right/<exercise>/<name>.py`` honours every
promise of the docstring by another route than the reference; its first
line is ``# RIGHT: <how it differs>``. A wrong answer must lose points in its
own exercise; a right answer must score full marks (if it does not, the
check is at fault, not the answer).

:func:`assemble` turns an entry into a gradable submission folder: the
reference solutions with the entry's exercise file swapped in.
"""

from __future__ import annotations

import shutil
from dataclasses import dataclass
from pathlib import Path

from grader.paths import REPO
from grader.registry import EXERCISES

CORPUS = REPO / "grader" / "tests" / "corpus"
SOLUTIONS = REPO / "solutions"
KINDS = ("wrong", "right")
HEADERS = {"wrong": "# WRONG: ", "right": "# RIGHT: "}
#: An optional second line of a wrong answer: why the public tests do not catch it, on purpose.
HIDDEN = "# HIDDEN: "


@dataclass(frozen=True)
class CorpusEntry:
    """One corpus file: ``kind`` is "wrong" or "right"; ``claim`` is its first-line comment text.

    ``hidden`` is, for a wrong answer the public tests let through on purpose,
    why (its ``# HIDDEN:`` second line); "" for every other entry.
    """

    kind: str
    exercise: str
    name: str
    path: Path
    claim: str
    hidden: str = ""

    @property
    def id(self) -> str:
        """``kind/exercise/name``, e.g. ``wrong/collate/left_padding``."""
        return f"{self.kind}/{self.exercise}/{self.name}"


def validate_header(path) -> tuple[str, str, str]:
    """(kind, claim, hidden) from the file's first two lines.

    ValueError unless the first line is ``# WRONG: ...`` or ``# RIGHT: ...``;
    ``hidden`` is the text of a ``# HIDDEN: ...`` second line (wrong answers only), else "".
    """
    path = Path(path)
    with open(path, encoding="utf-8") as f:
        first, second = f.readline().rstrip("\r\n"), f.readline().rstrip("\r\n")
    for kind, prefix in HEADERS.items():
        if first.startswith(prefix) and first[len(prefix):].strip():
            hidden = second[len(HIDDEN):].strip() if second.startswith(HIDDEN) else ""
            if hidden and kind != "wrong":
                raise ValueError(f"{path}: only a wrong answer can be hidden from the public tests")
            return kind, first[len(prefix):].strip(), hidden
    raise ValueError(f"{path}: the first line must be '# WRONG: <what is wrong>' or '# RIGHT: <how it differs>', got {first!r}")


def entries(kind: str) -> list[CorpusEntry]:
    """Every corpus entry of one kind, sorted by exercise (in grading order) and name.

    Raises ValueError for an unknown kind, a file in an unknown exercise
    folder, or a file whose header is missing or names the other kind.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown corpus kind {kind!r}; expected one of {', '.join(KINDS)}")
    found = []
    for path in sorted((CORPUS / kind).glob("*/*.py")):
        exercise = path.parent.name
        if exercise not in EXERCISES:
            raise ValueError(f"{path}: {exercise!r} is not an exercise ({', '.join(EXERCISES)})")
        header_kind, claim, hidden = validate_header(path)
        if header_kind != kind:
            raise ValueError(f"{path}: a file under {kind}/ must start with {HEADERS[kind].strip()!r}")
        found.append(CorpusEntry(kind=kind, exercise=exercise, name=path.stem, path=path, claim=claim, hidden=hidden))
    return sorted(found, key=lambda e: (EXERCISES.index(e.exercise), e.name))


def assemble_package(entry: CorpusEntry, dest) -> Path:
    """Like :func:`assemble`, as an importable package with the lab runner: for the public tests' ``--impl``."""
    dest = assemble(entry, dest)
    for name in ("__init__.py", "lab.py"):
        shutil.copyfile(SOLUTIONS / name, dest / name)
    return dest


def assemble(entry: CorpusEntry, dest) -> Path:
    """Copy the five reference solutions into ``dest``, with the entry's exercise file replaced by the entry; return dest."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    for exercise in EXERCISES:
        source = entry.path if exercise == entry.exercise else SOLUTIONS / f"{exercise}.py"
        shutil.copyfile(source, dest / f"{exercise}.py")
    return dest
