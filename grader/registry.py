"""The lab's exercises, read from ``lab.toml``: the one place that lists them.

``lab.toml`` sits at the top of this repository and of the published
grader (``python -m grader publish`` copies it); the student template gets a
copy too, read by ``tests/conftest.py``. Everything that needs the list of
exercises (the runner, the rubric, the reports, the stub generator, the
release, batch, the tests) reads :data:`EXERCISES` or :func:`exercises`.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from grader.paths import REPO
from grader.shared.common import probe_module
from grader.toml_file import read_toml

#: Where lab.toml is: beside the grader package (the repository root, or the published grader's root).
LAB_TOML = REPO / "lab.toml"
FIELDS = ("name", "entry_points", "handout", "experiment", "hint")


class RegistryError(ValueError):
    """lab.toml is missing or malformed; the message says what to fix."""


@dataclass(frozen=True)
class Exercise:
    """One exercise of the lab (see lab.toml for what each field means).

    What follows from the name is derived, never written twice: the file
    students write, and the exercise's folder ``grader/exercises/<name>/`` with
    its probe module, its promise file, its check file and its corpus. ``python -m grader check``
    proves that each of them exists.
    """

    name: str
    entry_points: tuple[str, ...]
    handout: str
    experiment: str
    hint: str

    @property
    def module(self) -> str:
        """The file students write, in exercises/ (stubs) and solutions/ (reference)."""
        return f"{self.name}.py"

    @property
    def folder(self) -> str:
        """The exercise's folder (relative to the repository): its probe, checks, helpers and corpus answers."""
        return f"grader/exercises/{self.name}"

    @property
    def probe(self) -> str:
        """The module of the probes that run the student's code inside the jail: the folder's only file that enters it."""
        return probe_module(self.name)

    @property
    def promises(self) -> str:
        """The promise file (relative to the repository): the exercise's promises, each with its judge's name and points."""
        return f"{self.folder}/promises.toml"

    @property
    def checks(self) -> str:
        """The check file (relative to the repository) that judges what the probes bring back."""
        return f"{self.folder}/check_{self.name}.py"

    def corpus(self, kind: str) -> str:
        """The folder (relative to the repository) of its corpus answers of ``kind`` ("right" or "wrong")."""
        return f"{self.folder}/corpus/{kind}"

    @property
    def pointer(self) -> str:
        """Where the student should look: the handout section(s), as stub messages and feedback name them."""
        sections = [f'"{self.handout}"'] + ([f'"{self.experiment}"'] if self.experiment else [])
        return "LAB.md, " + " and ".join(sections)


def bound(name: str, path: Path = LAB_TOML) -> float:
    """A number of lab.toml's ``[bounds]`` (shared with the lab runner); RegistryError when it is missing."""
    value = read_toml(path, "it lists the lab's exercises", RegistryError).get("bounds", {}).get(name)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise RegistryError(f"{path}: [bounds] has no number {name!r}")
    return float(value)


def load(path: Path = LAB_TOML) -> tuple[Exercise, ...]:
    """The exercises of ``path``, in order; RegistryError when the file is missing or malformed."""
    data = read_toml(path, "it lists the lab's exercises", RegistryError)
    found = []
    for i, entry in enumerate(data.get("exercise", [])):
        missing, extra = set(FIELDS) - set(entry), set(entry) - set(FIELDS)
        if missing or extra:
            raise RegistryError(f"{path}: exercise {i + 1} has missing fields {sorted(missing)} or unknown {sorted(extra)}")
        if not str(entry["name"]).isidentifier():
            raise RegistryError(f"{path}: exercise {entry['name']!r}: the name must be a Python identifier (it names <name>.py)")
        found.append(Exercise(**{**entry, "entry_points": tuple(entry["entry_points"])}))
    names = [e.name for e in found]
    if not found or len(set(names)) != len(names):
        raise RegistryError(f"{path}: expected one or more exercises with distinct names, got {names}")
    return tuple(found)


REGISTRY = load()
#: The exercises' names, in order.
EXERCISES = tuple(e.name for e in REGISTRY)
#: The files a submission consists of.
CONTRACT_FILES = tuple(e.module for e in REGISTRY)


def exercise(name: str) -> Exercise:
    """The exercise called ``name``; KeyError if there is none."""
    for entry in REGISTRY:
        if entry.name == name:
            return entry
    raise KeyError(name)
