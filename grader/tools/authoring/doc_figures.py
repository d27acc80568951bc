"""``python -m grader docs``: every number the documentation states that can be derived, derived.

A figure stands in a page as ``<!-- n:NAME -->VALUE<!-- /n -->`` (the markers
do not show when Markdown is rendered). :data:`FIGURES` says how each NAME is
derived from the repository (the registry, the rubric, the corpora, the
grader's own constants, the class workflow's slicing); :func:`render` writes
the current values into a page and :func:`problems` lists, one line each,
every figure that is stale or unknown. ``check`` and
grader/tests/test_docs.py fail while a page is stale, so a count in a page is
never typed by hand. A measured time is a figure too: it comes from the run
that ``python -m grader bench --record`` wrote (grader/docs/measured.toml),
and the page says when and at what load it was measured.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from pathlib import Path

from grader import registry
from grader.paths import REPO

FIGURE = re.compile(r"<!-- n:([a-z_]+) -->(.*?)<!-- /n -->")
#: The pages that may hold figures, relative to the repository.
PAGES = ("README.md", "grader/docs/DESIGN.md", "grader/docs/grading.md", "grader/docs/hosts.md",
         "grader/docs/recipes.md", "grader/docs/contract.md", "grader/docs/confirmation.md", "grader/docs/bounded_frames.md",
         "grader/docs/throughput.md")
#: The class workflow's slicing script (its PER_SLICE and MAX_SLICES are read from its text).
SLICING = Path(".github/scripts/list-repositories.py")
#: The measured run the measured figures come from: written by ``python -m grader bench --record``, never by hand.
MEASURED = Path("grader/docs/measured.toml")


def _measured(name: str, fmt: str = "{:g}") -> Callable[[Path], str]:
    """A figure of the recorded bench run (:data:`MEASURED`), as ``fmt`` writes it."""
    def value(repo: Path) -> str:
        import tomllib

        return fmt.format(tomllib.loads((repo / MEASURED).read_text(encoding="utf-8"))[name])
    return value


def _count(pattern: str, under: str = "grader/tests/corpus") -> Callable[[Path], str]:
    return lambda repo: str(len(list((repo / under).glob(pattern))))


def _slicing(name: str, repo: Path) -> int:
    from grader.tools.class_grading.dry_run import workflow_slicing

    per_slice, most = workflow_slicing(repo / SLICING)
    return per_slice if name == "PER_SLICE" else most


def _points(repo: Path) -> int:
    from grader.engine.rubric import POINTS_PER_EXERCISE

    return POINTS_PER_EXERCISE


def _const(module: str, name: str, scale: float = 1, fmt: str = "{:g}") -> Callable[[Path], str]:
    """A constant of the grader's code (``module.name``, divided by ``scale``), as ``fmt`` writes it."""
    def value(repo: Path) -> str:
        import importlib

        return fmt.format(getattr(importlib.import_module(module), name) / scale)
    return value


#: name -> how it is derived from the repository (a string, as the page shows it).
FIGURES: dict[str, Callable[[Path], str]] = {
    "exercises": lambda repo: str(len(registry.load(repo / "lab.toml"))),
    "exercise_list": lambda repo: ", ".join(f"`{e.name}`" for e in registry.load(repo / "lab.toml")),
    "points_per_exercise": lambda repo: str(_points(repo)),
    "max_points": lambda repo: str(_points(repo) * len(registry.load(repo / "lab.toml"))),
    "wrong_answers": _count("*/corpus/wrong/*.py", "grader/exercises"),
    "right_answers": _count("*/corpus/right/*.py", "grader/exercises"),
    "hostile_submissions": _count("hostile/*/expect.toml"),
    "hostile_repositories": _count("repositories/*/expect.toml"),
    "min_wrong": _const("grader.tools.authoring.corpus", "MIN_WRONG"),
    "min_right": _const("grader.tools.authoring.corpus", "MIN_RIGHT"),
    "per_slice": lambda repo: str(_slicing("PER_SLICE", repo)),
    "max_slices": lambda repo: str(_slicing("MAX_SLICES", repo)),
    "slice_minutes": lambda repo: f"{_slicing('PER_SLICE', repo) * float(_measured('s_per_student')(repo)) / 60:.1f}",
    "s_per_student": _measured("s_per_student"),
    "measured_at": _measured("measured_at", "{}"),
    "measured_load": lambda repo: f"{_measured('load_before')(repo)}-{_measured('load_after')(repo)}",
    "measured_cores": _measured("cores"),
    "measured_solutions_s": _measured("solutions_s"),
    "measured_stubs_s": _measured("stubs_s"),
    "measured_class_size": _measured("class_size"),
    "measured_class_s": _measured("class_s"),
    "check_budget_s": _const("grader.engine.checking", "CHECK_BUDGET_S"),
    "worker_timeout_s": _const("grader.engine.checking", "WORKER_TIMEOUT_S"),
    "preflight_timeout_s": _const("grader.engine.preflight", "PREFLIGHT_TIMEOUT_S"),
    "flags_per_check": _const("grader.engine.checking", "MAX_FLAGS_PER_CHECK"),
    "flags_per_report": _const("grader.engine.results", "MAX_INTEGRITY_FLAGS"),
    "json_report_kb": _const("grader.writers.formatting", "JSON_REPORT_BYTES", 1024),
    "markdown_report_kb": _const("grader.writers.formatting", "MARKDOWN_REPORT_BYTES", 1024),
    "merge_report_kb": _const("grader.tools.class_grading.class_reports", "MAX_REPORT_BYTES", 1024),
    "write_quota_entries": _const("grader.inside.quota", "MAX_ENTRIES", fmt="{:,.0f}"),
    "write_quota_mb": _const("grader.sandbox.zygote_setup", "WRITE_QUOTA_MB"),
    "contract_file_mb": _const("grader.tools.intake.commit_reader", "CONTRACT_FILE_MAX_BYTES", 1_000_000),
    "order_epochs": _const("grader.exercises.bucketing.check_bucketing", "ORDER_EPOCHS", fmt="{:,.0f}"),
    "order_chi_square": _const("grader.exercises.bucketing.check_bucketing", "ORDER_CHI_SQUARE"),
    "repeat_epochs": _const("grader.exercises.bucketing.check_bucketing", "REPEAT_EPOCHS", fmt="{:,.0f}"),
}


#: A figure whose source file is missing (the measured run, before any bench --record): left as the page has it.
MISSING = None


def values(repo: Path = REPO) -> dict[str, str | None]:
    """{name: its value now} for every figure of :data:`FIGURES` (:data:`MISSING` where its source file is absent)."""
    found = {}
    for name, derive in FIGURES.items():
        try:
            found[name] = derive(repo)
        except FileNotFoundError:
            found[name] = MISSING
    return found


def render(text: str, current: dict[str, str | None]) -> str:
    """``text`` with every known figure's value replaced by its value in ``current`` (unknown and missing ones left)."""
    return FIGURE.sub(lambda m: f"<!-- n:{m.group(1)} -->{current.get(m.group(1)) or m.group(2)}<!-- /n -->", text)


def problems(repo: Path = REPO) -> list[str]:
    """One line per stale or unknown figure of the pages, with the fix."""
    current, found = values(repo), []
    for page in PAGES:
        path = repo / page
        if not path.is_file():
            found.append(f"{page} is missing: the README's table of pages names it (restore it from git)")
            continue
        for match in FIGURE.finditer(path.read_text(encoding="utf-8")):
            name, shown = match.groups()
            if name not in current:
                found.append(f"{page}: the figure {name!r} is unknown: use one of grader/tools/authoring/doc_figures.py's FIGURES")
            elif current[name] is MISSING:
                found.append(f"{page}: {name} comes from {MEASURED}, which is missing: run python -m grader bench --record")
            elif shown != current[name]:
                found.append(f"{page}: {name} says {shown}, it is {current[name]}: run python -m grader docs")
    return found


def write(repo: Path = REPO) -> list[str]:
    """Render every page in place; return the pages that changed."""
    current, changed = values(repo), []
    for page in PAGES:
        path = repo / page
        if path.is_file():
            text = path.read_text(encoding="utf-8")
            new = render(text, current)
            if new != text:
                path.write_text(new, encoding="utf-8")
                changed.append(page)
    return changed
