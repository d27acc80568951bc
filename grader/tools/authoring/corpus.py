"""The answer corpus: realistic wrong and differently-right submissions, one exercise each.

``grader/exercises/<exercise>/corpus/wrong/<name>.py`` holds a mistake students
really make. Its first line is ``# WRONG: <what is wrong>``, its second
``# breaks: <promise id>[, <promise id>...]``: the promises of the contract
table (its exercise's promises.toml) it breaks, so that it must fail the
checks of those promises and no other. An optional third line is either
``# HIDDEN: <why>``, why the public tests let it through on purpose, or
``# witness of: <public test>; <lab claim>; ...``: the public tests
(``test_<exercise>.py::test_name``) and the lab's ``[ok]`` claims
(``lab <letter>: <claim>``) that must fail on it, so that none of them passes
on everything (grader/tests/test_public_catch.py).
``grader/exercises/<exercise>/corpus/right/<name>.py`` honours every promise of
the docstring by another route than the reference; its first line is
``# RIGHT: <how it differs>``. A wrong answer must lose points in its own
exercise; a right answer must score full marks (if it does not, the check is
at fault, not the answer).

An answer holds code, not a copy: after its header, only the solution
regions it changes (and module-level code of its own), as
:mod:`grader.tools.authoring.answer_regions` describes; the module it
stands for is assembled from ``solutions/`` when it is read
(:meth:`CorpusEntry.source`), so a docstring edit touches no answer. An
answer whose mistake lies outside every region (in code the stubs hand out
as is) is a whole module instead, and says so and why in a header line
``# WHOLE: <why>``.

:func:`assemble` turns an entry into a gradable submission folder: the
reference solutions with the entry's exercise module swapped in.
"""

from __future__ import annotations

import re
import shutil
import tomllib
from dataclasses import dataclass
from pathlib import Path

from grader.paths import REPO
from grader.registry import EXERCISES, REGISTRY
from grader.tools.authoring import answer_regions

#: The corpora that are not one exercise's: hostile/ (whole submissions that attack the grader) and repositories/.
CORPUS = REPO / "grader" / "tests" / "corpus"
SOLUTIONS = REPO / "solutions"
KINDS = ("wrong", "right")
#: The fewest wrong and right answers an exercise may have (grader/tests/test_corpus_answers.py, ``check``).
MIN_WRONG, MIN_RIGHT = 10, 4
HEADERS = {"wrong": "# WRONG: ", "right": "# RIGHT: "}
#: The second line of a wrong answer: the promises it breaks, by contract id.
BREAKS = "# breaks: "
#: An optional line after it: why the public tests do not catch it, on purpose.
HIDDEN = "# HIDDEN: "
#: Or, instead, the public tests and lab claims it is the witness of ("; " between them).
WITNESS = "# witness of: "
#: The header line of an answer that is a whole module rather than regions: why its mistake needs code outside them.
WHOLE = "# WHOLE: "
#: Where a hostile entry may be graded: this machine (the jail where it can be made), the simulated Gradescope container.
HOSTILE_PLACES = ("host", "container")
_PROMISE_ID = re.compile(r"^[a-z][a-z0-9_]*\.[a-z][a-z0-9_]*$")


@dataclass(frozen=True)
class CorpusEntry:
    """One corpus file: ``kind`` is "wrong" or "right"; ``claim`` is its first-line comment text.

    ``breaks`` is, for a wrong answer, the contract ids of the promises it
    breaks (its ``# breaks:`` line); ``hidden`` why the public tests let it
    through on purpose (its ``# HIDDEN:`` line); ``witnesses`` the public tests
    and lab claims that must fail on it (its ``# witness of:`` line); all empty
    for a right answer.
    """

    kind: str
    exercise: str
    name: str
    path: Path
    claim: str
    hidden: str = ""
    breaks: tuple[str, ...] = ()
    witnesses: tuple[str, ...] = ()

    @property
    def id(self) -> str:
        """``kind/exercise/name``, e.g. ``wrong/collate/left_padding``."""
        return f"{self.kind}/{self.exercise}/{self.name}"

    @property
    def module(self) -> str:
        """The file name of its exercise: ``collate.py``."""
        return f"{self.exercise}.py"

    def source(self, solutions: Path | None = None) -> str:
        """The whole module this answer stands for: its regions in the reference (``solutions``, default solutions/),
        or the file itself when it is a whole module. AnswerError, naming the answer, when its regions no longer fit."""
        text = self.path.read_text(encoding="utf-8")
        if not answer_regions.is_regions_file(text):
            return text
        reference = ((solutions or SOLUTIONS) / f"{self.exercise}.py").read_text(encoding="utf-8")
        return answer_regions.assemble(reference, text, str(self.path.relative_to(REPO) if self.path.is_relative_to(REPO) else self.path))


@dataclass(frozen=True)
class Header:
    """A corpus file's header lines: its kind, claim, the promises it breaks and why it is hidden (see the module docstring)."""

    kind: str
    claim: str
    breaks: tuple[str, ...] = ()
    hidden: str = ""
    witnesses: tuple[str, ...] = ()


def validate_header(path) -> Header:
    """The header of a corpus file, from its first three lines.

    ValueError unless the first line is ``# WRONG: ...`` or ``# RIGHT: ...``,
    a wrong answer's second line is ``# breaks: <id>, ...`` (ids shaped
    ``<exercise>.<name>``; whether the table has them is test_corpus_answers's
    to say), and a right answer has neither a breaks nor a HIDDEN line.
    """
    path = Path(path)
    with open(path, encoding="utf-8") as f:
        first, second, third = (f.readline().rstrip("\r\n") for _ in range(3))
        f.seek(0)
        text = f.read()
    regions = answer_regions.is_regions_file(text)
    whole = any(line.startswith(WHOLE) for line in text.splitlines()[:4])
    if regions == whole:
        raise ValueError(f"{path}: an answer is either the solution regions it changes ('### BEGIN SOLUTION <name>' ... "
                         f"'### END SOLUTION') or a whole module with a header line '{WHOLE}<why>', not "
                         f"{'both' if regions else 'neither'}")
    kind = next((k for k, prefix in HEADERS.items() if first.startswith(prefix) and first[len(prefix):].strip()), None)
    if kind is None:
        raise ValueError(f"{path}: the first line must be '# WRONG: <what is wrong>' or '# RIGHT: <how it differs>', got {first!r}")
    claim = first[len(HEADERS[kind]):].strip()
    if kind == "right":
        if second.startswith((BREAKS, HIDDEN, WITNESS)):
            raise ValueError(f"{path}: only a wrong answer breaks promises, is hidden from the public tests or witnesses them")
        return Header(kind, claim)
    breaks = tuple(i.strip() for i in second[len(BREAKS):].split(",")) if second.startswith(BREAKS) else ()
    if not breaks or not all(_PROMISE_ID.match(i) for i in breaks):
        raise ValueError(f"{path}: the second line must be '# breaks: <promise id>[, <promise id>...]' (ids from "
                         f"its exercise's promises.toml), got {second!r}")
    hidden = third[len(HIDDEN):].strip() if third.startswith(HIDDEN) else ""
    witnesses = tuple(i.strip() for i in third[len(WITNESS):].split(";")) if third.startswith(WITNESS) else ()
    if third.startswith(WITNESS) and not all(witnesses):
        raise ValueError(f"{path}: the witness line must be '{WITNESS}<test_file.py::test_name or lab <letter>: "
                         f"<claim>>[; ...]', got {third!r}")
    return Header(kind, claim, breaks, hidden, witnesses)


def answers_folder(exercise: str, kind: str, repo: Path = REPO) -> Path:
    """Where the answers of ``kind`` of ``exercise`` are: ``grader/exercises/<exercise>/corpus/<kind>/``."""
    return repo / next(e for e in REGISTRY if e.name == exercise).corpus(kind)


def answer_files(kind: str, repo: Path = REPO) -> list[tuple[Path, str]]:
    """(path, exercise) of every answer file of ``kind``, exercise by exercise in grading order."""
    return [(path, entry.name) for entry in REGISTRY for path in sorted((repo / entry.corpus(kind)).glob("*.py"))]


def entries(kind: str) -> list[CorpusEntry]:
    """Every corpus entry of one kind, sorted by exercise (in grading order) and name.

    Raises ValueError for an unknown kind, or a file whose header is missing
    or names the other kind.
    """
    if kind not in KINDS:
        raise ValueError(f"unknown corpus kind {kind!r}; expected one of {', '.join(KINDS)}")
    found = []
    for path, exercise in answer_files(kind):
        header = validate_header(path)
        if header.kind != kind:
            raise ValueError(f"{path}: a file under {kind}/ must start with {HEADERS[kind].strip()!r}")
        found.append(CorpusEntry(kind=kind, exercise=exercise, name=path.stem, path=path, claim=header.claim,
                                 hidden=header.hidden, breaks=header.breaks, witnesses=header.witnesses))
    return sorted(found, key=lambda e: (EXERCISES.index(e.exercise), e.name))


def assemble_package(entry: CorpusEntry, dest) -> Path:
    """Like :func:`assemble`, as an importable package with the lab runner: for the public tests' ``--impl``."""
    dest = assemble(entry, dest)
    for name in ("__init__.py", "lab.py"):
        shutil.copyfile(SOLUTIONS / name, dest / name)
    return dest


def assemble(entry: CorpusEntry, dest) -> Path:
    """Copy the reference solutions into ``dest``, with the entry's exercise module (:meth:`CorpusEntry.source`) in
    place of its reference; return dest."""
    dest = Path(dest)
    dest.mkdir(parents=True, exist_ok=True)
    for exercise in EXERCISES:
        if exercise == entry.exercise:
            (dest / f"{exercise}.py").write_text(entry.source(), encoding="utf-8")
        else:
            shutil.copyfile(SOLUTIONS / f"{exercise}.py", dest / f"{exercise}.py")
    return dest


def hostile_places(name: str) -> tuple[str, ...]:
    """Where the hostile entry ``name`` is graded: this machine always, and the simulated Gradescope container when
    its expect.toml has a ``[container]`` table (an attack on what the isolation level changes: files, network,
    signals, processes, disk; its ``why`` says which layer must hold there)."""
    expect = tomllib.loads((CORPUS / "hostile" / name / "expect.toml").read_text(encoding="utf-8"))
    return HOSTILE_PLACES if "container" in expect else HOSTILE_PLACES[:1]
