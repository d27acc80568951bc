"""The shared class of 30: real git repositories of honest and hostile students, built once per test run.

Every student is a bare repository ``<server>/course/<name>.git`` and a set
of answers GitHub's API would give about it (for the stand-in ``gh``,
:mod:`grader.tests.stub_gh`). Each row's expected outcome is known before
anything is graded:

* :class:`Honest` students are made of the reference (``R``, 20 points),
  the stub (``S``, 0) and right answers from ``grader/exercises/<exercise>/corpus/right/``
  (``A``, 20), one letter per exercise;
* :class:`Hostile` students are the cases of the repositories corpus
  (:mod:`grader.tests.repository_corpus`): the row its ``expect.toml`` says;
* :class:`Forger` students hand in one file of the hostile submissions
  corpus (a forged result frame, say): that exercise scores 0, the others 20;
* the :class:`Hog` hands in the reference but for a ``pad_collate`` that
  answers the preflight's tiny input at once and, in every later probe,
  starts :data:`HOG_PROCESSES` busy processes, each in a session of its own,
  busies itself for :data:`HOG_BUSY_S` and raises (later calls in the same
  probe raise at once): collate scores 0, and no
  classmate graded beside it (``--jobs 2``) may lose a point;
* a :class:`Copier` is honest but for one exercise, whose file is a
  classmate's right answer with its variables renamed and its layout redone
  (:func:`renamed`); a :class:`Walker` hands in the reference with a frame walk
  added to one file (:data:`FRAME_WALK`), which costs nothing: only the review
  (``python -m grader review``) shows either.

Right answers (``A``) are dealt out so that no two students share one: the
k-th student with an ``A`` for an exercise gets that exercise's k-th answer.

Adding a student is one line in :data:`STUDENTS`. Tests get the built class
from :func:`shared_class`, which builds it once per test run, whichever
pytest-xdist worker asks first (the others wait on a file lock and reuse
it: grader/tests/once_per_run.py, which the class's grading uses too), and
:func:`attacker_listener` listens where the
hostile repositories send git-lfs and submodules, one test at a time.
"""

from __future__ import annotations

import ast
import contextlib
import fcntl
import json
import socket
from dataclasses import dataclass
from pathlib import Path

from grader.engine.defaults import default
from grader.engine.rubric import POINTS_PER_EXERCISE
from grader.paths import REPO
from grader.registry import EXERCISES
from grader.tests.git_http import Listener
from grader.tests.gitrepos import Repository
from grader.tests.once_per_run import once, run_folder
from grader.tests.repository_corpus import Context, build_case, contract, load_expect
from grader.tools.authoring import corpus

OWNER = "course"
DEADLINE = "2026-12-01T23:59:00+00:00"
POINTS = POINTS_PER_EXERCISE  # what every exercise is worth (grader/engine/rubric.py)
#: The address the hostile repositories aim at (lfs.url, a submodule's URL): not the git server's host
#: (127.0.0.1), nor the one the tests' own listeners use (127.0.0.3), so no other bind can take its port.
ATTACKER_HOST = "127.0.0.2"


@dataclass(frozen=True)
class Honest:
    """A student whose files are known answers: ``recipe`` has one letter per exercise (R, S or A)."""

    name: str
    recipe: str


@dataclass(frozen=True)
class Copier(Honest):
    """An honest student but for ``exercise``: ``copies``'s file for it (an ``A``), variables renamed."""

    copies: str = ""
    exercise: str = ""


@dataclass(frozen=True)
class Walker(Honest):
    """An honest student whose ``exercise`` file also walks the interpreter's frames at import (:data:`FRAME_WALK`)."""

    exercise: str = ""


#: Appended to a Walker's file: a walk up the frames that import it, looking for the grader's probe. It changes no
#: result, so it costs nothing; the review lists it (sys._getframe and f_back, with their lines).
FRAME_WALK = """

def _find_the_probe():
    import sys

    frame, names = sys._getframe(1), []
    while frame is not None:
        names.append(frame.f_code.co_name)
        frame = frame.f_back
    return names


_PROBE_FRAMES = _find_the_probe()
"""


def renamed(source: bytes) -> bytes:
    """``source`` with every function's local variables renamed (parameters kept: callers pass them by name), comments
    dropped and the layout redone (``ast.unparse``): how a copied answer is usually disguised."""
    tree = ast.parse(source)

    def rename(function: ast.AST) -> None:
        params = {a.arg for a in ast.walk(function.args) if isinstance(a, ast.arg)}
        declared = {n for node in ast.walk(function) if isinstance(node, (ast.Global, ast.Nonlocal)) for n in node.names}
        local = {n.id for n in ast.walk(function) if isinstance(n, ast.Name) and isinstance(n.ctx, ast.Store)}
        names = {name: f"my_{name.strip('_')}_value" for name in local - params - declared}
        for node in ast.walk(function):
            if isinstance(node, ast.Name) and node.id in names:
                node.id = names[node.id]
            elif isinstance(node, ast.arg) and node.arg in names:
                node.arg = names[node.arg]

    for node in ast.walk(tree):
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
            rename(node)
    return (ast.unparse(tree) + "\n").encode()


@dataclass(frozen=True)
class Hostile:
    """A student whose repository is the corpus case ``case`` (named after it)."""

    case: str

    @property
    def name(self) -> str:
        return self.case


@dataclass(frozen=True)
class Forger:
    """A student whose files are the reference but for ``exercise``, taken from the hostile submission
    ``grader/tests/corpus/hostile/<entry>/``: that exercise scores 0 and every other 20."""

    name: str
    entry: str
    exercise: str


@dataclass(frozen=True)
class Hog:
    """A student who hands in the reference but for ``pad_collate`` (:data:`HOG_COLLATE`): collate scores 0, the
    others 20, and the CPU it burns beside its classmates' gradings must change none of their rows."""

    name: str
    exercise: str = "collate"


#: The hog's busy processes per probe (each after its own setsid(): the kernel shares CPU fairly between sessions)
#: and how long each probe keeps them busy. Modest, so the class costs the suite little more, yet at --jobs 2 on a
#: 2-core machine enough to slow a neighbour's worker checks.
HOG_PROCESSES = 60
HOG_BUSY_S = 1.5

#: Put at the start of the reference's pad_collate: the preflight's input ([tensor([1, 2])]) gets the right answer.
HOG_PREAMBLE = f"""    if len(batch) != 1 or batch[0].tolist() != [1, 2]:
        _hog_the_machine({HOG_PROCESSES}, {HOG_BUSY_S})
"""

HOG_FUNCTION = """

_HOGGED = []


def _hog_the_machine(processes, seconds):
    import os
    import time

    if _HOGGED:  # once per probe: its later calls raise at once
        raise RuntimeError("no batch today")
    _HOGGED.append(True)
    end = time.monotonic() + seconds
    for _ in range(processes):
        try:
            if os.fork() == 0:
                os.setsid()
                while time.monotonic() < end:
                    pass
                os._exit(0)
        except OSError:
            break
    while time.monotonic() < end:
        pass
    raise RuntimeError("no batch today")
"""


def hog_collate() -> bytes:
    """The hog's collate.py: the reference with :data:`HOG_PREAMBLE` at the start of pad_collate's body."""
    source = (REPO / "solutions" / "collate.py").read_text()
    header = f"def pad_collate(batch, pad_id={default('collate', 'pad_collate', 'pad_id')!r}):\n"
    start = source.index(header)
    body = source.index('"""\n', source.index('"""', start) + 3) + 4  # after the docstring
    return (source[:body] + HOG_PREAMBLE + source[body:].rstrip("\n") + "\n" + HOG_FUNCTION).encode()


#: Letters beyond what a row needs are S: an R or an A costs that exercise's checks (about 2 s of CPU each), an S
#: stops at the preflight.
STUDENTS = (
    Honest("ada", "RRRRR"), Honest("ben", "SSSSS"), Honest("cai", "RSRSR"), Honest("dee", "AAAAA"),
    Walker("eli", "RSSSS", exercise="collate"), Honest("fay", "SRSSS"), Honest("gus", "ASASA"), Honest("hal", "RRSSS"),
    Honest("ivy", "SSRRA"), Honest("jon", "AASSS"), Copier("kim", "SASAS", copies="dee", exercise="bucketing"),
    Honest("lea", "SSSSR"),
    Honest("max", "RSSSS"), Honest("nia", "ASSSR"), Honest("oli", "SSASS"), Honest("pam", "SASAS"),
    Honest("quy", "SSSAS"), Honest("ray", "AAASS"), Honest("sam", "SRSRS"), Forger("tia", "forged_huge_error", "collate"),
    Hostile("lfs_pointer"), Hostile("symlinks"), Hostile("submodule"), Hostile("oversized_blob"),
    Hostile("case_collision"), Hostile("other_branches"), Hostile("crafted_names"), Hostile("api_non_object"),
    Hostile("force_pushed"), Hostile("many_files"), Hog("uma"),
)


@dataclass
class BuiltClass:
    """A built class: where its repositories are and what each row must be.

    ``students``: {name: {"repository", "commit" (the one the row must come
    from, "" for an error row), "scores" ({exercise: points}) or "error"
    (a substring), "reasons", "flags", "kind" ("honest" or "hostile")}}.
    ``answers``: the JSON file of GitHub's answers for the stand-in gh.
    ``attacker``: (host, port) the hostile repositories send git-lfs and
    submodules to; a listener there must receive nothing.
    """

    root: Path
    students: dict[str, dict]
    attacker: tuple[str, int]

    @property
    def server(self) -> Path:
        return self.root / "server"

    @property
    def answers(self) -> Path:
        return self.root / "answers.json"

    @property
    def repositories(self) -> list[str]:
        return [s["repository"] for s in self.students.values()]


@contextlib.contextmanager
def attacker_listener(klass: BuiltClass):
    """The listener at the address the class's hostile repositories aim at, for one test at a time.

    Held under a file lock: another xdist worker that wants it waits instead of
    failing to bind the same address.
    """
    with open(run_folder() / "attacker.lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        with Listener(*klass.attacker) as listener:
            yield listener


def shared_class() -> BuiltClass:
    """The class of :data:`STUDENTS`, built once per test run."""
    data = once("class-of-30", lambda folder: build_class(folder, STUDENTS))
    return BuiltClass(Path(data["root"]), data["students"], tuple(data["attacker"]))


def build_class(root: Path, students) -> dict:
    """Build every student's repository under ``root/server`` and the API answers; return what shared_class reads."""
    attacker = (ATTACKER_HOST, _free_port(ATTACKER_HOST))
    answers, expected = {}, {}
    names = [s.name for s in students]
    dealt = _deal_answers(students)
    for index, student in enumerate(students):
        repository = f"{OWNER}/{student.name}"
        ctx = Context(repository=repository, deadline=DEADLINE, attacker_url=f"http://{attacker[0]}:{attacker[1]}",
                      classmate=names[(index + 1) % len(names)])
        path = root / "server" / OWNER / f"{student.name}.git"
        if isinstance(student, Honest):
            _build_honest(student, dealt, path, ctx, index)
            kind = "honest" if type(student) is Honest else type(student).__name__.lower()  # copier, walker
            row = {"kind": kind, "scores": {e: POINTS * (c != "S") for e, c in zip(EXERCISES, student.recipe)},
                   "reasons": {}, "flags": []}
        elif isinstance(student, Hog):
            _build_hog(student, index, path, ctx)
            row = {"kind": "hog", "scores": {e: POINTS * (e != student.exercise) for e in EXERCISES},
                   "reasons": {}, "flags": []}
        elif isinstance(student, Forger):
            _build_forger(student, index, path, ctx)
            row = {"kind": "forger", "scores": {e: POINTS * (e != student.exercise) for e in EXERCISES},
                   "reasons": {}, "flags": []}
        else:
            build_case(student.case, path, ctx)
            row = {"kind": "hostile", **load_expect(student.case)}
            row.pop("description", None)
        answers.update(ctx.api_answers())
        expected[student.name] = {"repository": repository, "commit": "" if "error" in row else ctx.expected_commit(), **row}
    (root / "answers.json").write_text(json.dumps(answers, indent=1))
    return {"root": str(root), "students": expected, "attacker": list(attacker)}


def _deal_answers(students) -> dict[tuple[str, str], corpus.CorpusEntry]:
    """{(student, exercise): a right answer} for every ``A``: the k-th student with an A for an exercise gets its k-th answer."""
    right = {e: [x for x in corpus.entries("right") if x.exercise == e and "slow" not in x.name] for e in EXERCISES}
    dealt = {}
    for position, exercise in enumerate(EXERCISES):
        takers = [s.name for s in students if isinstance(s, Honest) and s.recipe[position] == "A"]
        assert len(takers) <= len(right[exercise]), f"more A students than right answers for {exercise}: {takers}"
        dealt.update({(name, exercise): right[exercise][k] for k, name in enumerate(takers)})
    return dealt


def _build_honest(student: Honest, dealt: dict, path: Path, ctx: Context, index: int) -> None:
    assert len(student.recipe) == len(EXERCISES) and set(student.recipe) <= set("RSA"), student
    files = contract(corpus.SOLUTIONS)
    for exercise, letter in zip(EXERCISES, student.recipe):
        if letter == "S":
            files[f"exercises/{exercise}.py"] = (REPO / "exercises" / f"{exercise}.py").read_bytes()
        elif letter == "A":
            files[f"exercises/{exercise}.py"] = dealt[student.name, exercise].source().encode()
    if isinstance(student, Copier):
        assert student.recipe[EXERCISES.index(student.exercise)] == "A", student
        files[f"exercises/{student.exercise}.py"] = renamed(dealt[student.copies, student.exercise].source().encode())
    if isinstance(student, Walker):
        files[f"exercises/{student.exercise}.py"] += FRAME_WALK.encode()
    files["README.md"] = f"# {student.name}'s lab\n".encode()
    commit = Repository(path).commit(files, message="my lab", date=ctx.at(-12 - index))
    ctx.push(commit, -12 - index)


def _build_forger(student: Forger, index: int, path: Path, ctx: Context) -> None:
    files = contract(corpus.SOLUTIONS)
    files[f"exercises/{student.exercise}.py"] = (corpus.CORPUS / "hostile" / student.entry / f"{student.exercise}.py").read_bytes()
    commit = Repository(path).commit(files, message="my lab", date=ctx.at(-12 - index))
    ctx.push(commit, -12 - index)


def _build_hog(student: Hog, index: int, path: Path, ctx: Context) -> None:
    files = contract(corpus.SOLUTIONS)
    files[f"exercises/{student.exercise}.py"] = hog_collate()
    commit = Repository(path).commit(files, message="my lab", date=ctx.at(-12 - index))
    ctx.push(commit, -12 - index)


def _free_port(host: str) -> int:
    with socket.create_server((host, 0)) as probe:
        return probe.getsockname()[1]
