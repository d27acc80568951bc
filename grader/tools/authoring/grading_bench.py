"""``python -m grader bench``: where the time of a grading goes, and what a class costs.

Each grading runs as its own ``python -m grader grade`` process, as an
instructor or a workflow would run it, alternating between the reference
solutions and the stubs so that a busy machine slows both alike. From the
JSON reports it prints, as medians over the repeats:

* the wall time of a whole grading (process start to exit), solutions and stubs;
* the phases of grading the solutions: starting the jailed sandbox (the
  zygote's ``import torch``), each exercise's preflight, and each check.

With ``--memory`` it measures the peak memory of one whole grading of the
solutions, every process together (for a host's memory setting). With
``--isolation`` it grades the solutions under each isolation setting
(:data:`ISOLATION_SETTINGS`: the jail with and without the kernel's layers,
contained, weak), alternating, and prints what the layers cost.

Then it grades a class through ``python -m grader batch`` with each of
``--batch-jobs``: ``--class-size`` students made from the corpus (a third
the reference, a sixth the stubs, the rest one wrong or differently-right
answer each), and prints the wall time and the time per student.

With ``--record`` it also writes :data:`MEASURED` (grader/docs/measured.toml):
the medians above, the class's time per student, when, and the machine's
load before and after; ``python -m grader docs`` derives the pages' measured
figures from it (grader/tools/authoring/doc_figures.py), so none is typed by hand.
"""

from __future__ import annotations

import json
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grader.paths import REPO
from grader.tools.authoring import corpus

FOLDERS = {"solutions": REPO / "solutions", "stubs": REPO / "exercises"}
#: Where ``--record`` writes the measured run that the documentation's figures are derived from.
MEASURED = REPO / "grader" / "docs" / "measured.toml"
#: The ``--jobs`` of the recorded class: the class workflow's (``batch --jobs 2`` on a 2-core runner).
RECORDED_JOBS = 2
#: The isolation settings ``--isolation`` compares: name -> the grade options that make it.
ISOLATION_SETTINGS = {"jail + layers": [], "jail, layers off": ["--layers", "off"], "contained": ["--jail", "off"],
                      "weak": ["--jail", "off", "--layers", "off"]}


def time_grading(folder: Path, seed: int, options: list[str] = ()) -> tuple[float, dict]:
    """Seconds for one ``grade`` run of ``folder`` (with ``options``), and its JSON report."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "result.json"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "grader", "grade", str(folder), "--quiet", "--seed", str(seed),
                        "--json", str(report), *options], cwd=REPO, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start, json.loads(report.read_text())


def compare_isolation(repeats: int, seed: int) -> None:
    """Print the median wall time of grading the solutions under each of :data:`ISOLATION_SETTINGS`."""
    walls: dict[str, list[float]] = {name: [] for name in ISOLATION_SETTINGS}
    levels: dict[str, set[str]] = {name: set() for name in ISOLATION_SETTINGS}
    for round_ in range(1, repeats + 1):
        for name, options in ISOLATION_SETTINGS.items():
            seconds, report = time_grading(FOLDERS["solutions"], seed, options)
            walls[name].append(seconds)
            levels[name].add(f"{report['isolation']['level']}, {report['score']:g}/{report['max_score']:g}")
            print(f"  round {round_}: {name:<18} {seconds:6.1f} s", file=sys.stderr, flush=True)
    base = statistics.median(walls["jail + layers"])
    print(f"grading the solutions under each isolation, {repeats} alternating runs (median wall time):")
    for name in ISOLATION_SETTINGS:
        median = statistics.median(walls[name])
        print(f"  {name:<18} {median:6.1f} s  ({median / base:4.2f}x)  {'; '.join(sorted(levels[name]))}")


def phase_times(report: dict) -> dict[str, float]:
    """{phase: seconds}: the report's phases, then every check as ``check exercise/check``."""
    times = dict(report.get("phases", {}))
    for exercise in report["exercises"]:
        for check in exercise["checks"]:
            times[f"check {exercise['name']}/{check['name']}"] = check["duration_s"]
    return times


def _memory_cgroup() -> Path | None:
    """A fresh memory cgroup below this process's (v2 or v1), or None where none can be made."""
    try:
        lines = Path("/proc/self/cgroup").read_text().splitlines()
    except OSError:
        return None
    for line in lines:
        _, controllers, path = line.split(":", 2)
        base = (Path("/sys/fs/cgroup") / path.lstrip("/") if controllers == "" and not Path("/sys/fs/cgroup/memory").is_dir()
                else Path("/sys/fs/cgroup/memory") / path.lstrip("/") if "memory" in controllers.split(",") else None)
        if base is not None:
            group = base / f"grader-bench-{os.getpid()}"
            try:
                group.mkdir()
                return group
            except OSError:
                return None
    return None


def peak_memory_mb(folder: Path, seed: int) -> tuple[float, str]:
    """Peak memory of one whole grading (every process together), in MB, and how it was measured.

    In a memory cgroup of its own, the kernel's high-water mark of the
    grading (its page cache included, as a container's limit counts it);
    without one, the largest sum of the processes' resident memory seen
    every 20 ms (shared pages counted in each process: an upper bound).
    """
    group = _memory_cgroup()
    cmd = [sys.executable, "-m", "grader", "grade", str(folder), "--quiet", "--seed", str(seed)]

    def join_group():
        (group / "cgroup.procs").write_text(str(os.getpid()))

    proc = subprocess.Popen(cmd, cwd=REPO, stdout=subprocess.DEVNULL, preexec_fn=join_group if group else None)
    peak = 0
    while proc.poll() is None:
        if group is None:
            peak = max(peak, _tree_rss_kb(proc.pid) << 10)
        time.sleep(0.02)
    if group is None:
        return peak / 2**20, "sum of resident memory over the process tree (upper bound)"
    try:
        name = "memory.peak" if (group / "memory.peak").exists() else "memory.max_usage_in_bytes"
        return int((group / name).read_text()) / 2**20, f"cgroup {name}"
    finally:
        group.rmdir()


def _tree_rss_kb(root: int) -> int:
    from grader.shared.proctree import descendants

    total = 0
    for pid in [root, *descendants(root)]:
        try:
            for line in Path(f"/proc/{pid}/status").read_text().splitlines():
                if line.startswith("VmRSS:"):
                    total += int(line.split()[1])
        except OSError:
            continue
    return total


def make_class(dest: Path, size: int) -> Path:
    """``size`` student folders under ``dest``: reference, stubs, and corpus answers swapped in."""
    answers = corpus.entries("wrong") + corpus.entries("right")
    for i in range(size):
        student = dest / f"student{i:03d}"
        if i % 6 in (0, 3):
            shutil.copytree(FOLDERS["solutions"], student, ignore=shutil.ignore_patterns("__pycache__"))
        elif i % 6 == 1:
            shutil.copytree(FOLDERS["stubs"], student, ignore=shutil.ignore_patterns("__pycache__"))
        else:
            corpus.assemble(answers[(i * 7) % len(answers)], student)
    return dest


def time_batch(size: int, jobs: int, seed: int) -> float:
    """Seconds for ``batch --jobs jobs`` over a fresh class of ``size``."""
    with tempfile.TemporaryDirectory() as tmp:
        klass = make_class(Path(tmp) / "class", size)
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "grader", "batch", str(klass), "--out", str(Path(tmp) / "out"),
                        "--jobs", str(jobs), "--seed", str(seed)], cwd=REPO, check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return time.perf_counter() - start


def write_measured(path: Path, figures: dict[str, float | int | str]) -> None:
    """Write the recorded run as TOML: one ``name = value`` line each, under a header that says where it comes from."""
    lines = ["# Written by python -m grader bench --record: the measured run the documentation's figures are derived from",
             "# (python -m grader docs). Do not edit: measure again.", ""]
    for name, value in figures.items():
        lines.append(f"{name} = {value!r}" if not isinstance(value, str) else f'{name} = "{value}"')
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")


def measure(repeats: int, seed: int, class_size: int, batch_jobs: list[int], memory: bool = False,
            isolation: bool = False, record: Path | None = None) -> int:
    load_before = os.getloadavg()[0]
    walls: dict[str, list[float]] = {name: [] for name in FOLDERS}
    scores: dict[str, set[str]] = {name: set() for name in FOLDERS}
    phases: dict[str, list[float]] = {}
    for round_ in range(1, repeats + 1):
        for name, folder in FOLDERS.items():
            seconds, report = time_grading(folder, seed)
            walls[name].append(seconds)
            scores[name].add(f"{report['score']:g}/{report['max_score']:g}")
            if name == "solutions":
                for phase, value in phase_times(report).items():
                    phases.setdefault(phase, []).append(value)
            print(f"  round {round_}: {name:<10} {seconds:6.1f} s", file=sys.stderr, flush=True)
    print(f"grading wall time, {repeats} alternating runs, seed {seed} (process start to exit):")
    for name in FOLDERS:
        print(f"  {name:<10} median {statistics.median(walls[name]):6.1f} s   max {max(walls[name]):6.1f} s   "
              f"score {', '.join(sorted(scores[name]))}")
    print("phases of grading the solutions (median seconds; checks under 0.05 s are summed):")
    small = 0.0
    for phase, values in phases.items():
        median = statistics.median(values)
        if median >= 0.05 or not phase.startswith("check "):
            print(f"  {phase:<55} {median:6.2f}")
        else:
            small += median
    print(f"  {'all other checks together':<55} {small:6.2f}")
    if isolation:
        compare_isolation(repeats, seed)
    if memory:
        megabytes, how = peak_memory_mb(FOLDERS["solutions"], seed)
        print(f"peak memory of grading the solutions: {megabytes:,.0f} MB ({how})", flush=True)
    batches = {}
    for jobs in batch_jobs if class_size else []:
        seconds = batches[jobs] = time_batch(class_size, jobs, seed)
        print(f"batch of {class_size} students, --jobs {jobs}: {seconds:6.1f} s ({seconds / class_size:.1f} s a student)",
              flush=True)
    if record is not None:
        if RECORDED_JOBS not in batches:
            print(f"--record needs the class graded with --jobs {RECORDED_JOBS} (--class-size > 0 and "
                  f"--batch-jobs including {RECORDED_JOBS}): nothing recorded", file=sys.stderr)
            return 1
        write_measured(record, {
            "measured_at": time.strftime("%Y-%m-%d %H:%M UTC", time.gmtime()), "cores": os.cpu_count() or 0,
            "load_before": round(load_before, 1), "load_after": round(os.getloadavg()[0], 1), "repeats": repeats,
            "solutions_s": round(statistics.median(walls["solutions"]), 1),
            "stubs_s": round(statistics.median(walls["stubs"]), 1),
            "class_size": class_size, "class_jobs": RECORDED_JOBS, "class_s": round(batches[RECORDED_JOBS], 1),
            "s_per_student": round(batches[RECORDED_JOBS] / class_size, 1)})
        print(f"recorded into {record}: run python -m grader docs to update the pages' figures")
    return 0


def jobs_list(text: str) -> list[int]:
    import argparse

    try:
        jobs = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--batch-jobs takes numbers separated by commas, like 1,2; got {text!r}") from None
    if not jobs or min(jobs) < 1:
        raise argparse.ArgumentTypeError("--batch-jobs: every number must be at least 1")
    return jobs
