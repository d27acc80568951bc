"""``python -m grader bench``: where the time of a grading goes, and what a class costs.

Each grading runs as its own ``python -m grader grade`` process, as an
instructor or a workflow would run it, alternating between the reference
solutions and the stubs so that a busy machine slows both alike. From the
JSON reports it prints, as medians over the repeats:

* the wall time of a whole grading (process start to exit), solutions and stubs;
* the phases of grading the solutions: starting the jailed sandbox (the
  zygote's ``import torch``), each exercise's preflight, and each check.

Then it grades a class through ``python -m grader batch`` with each of
``--batch-jobs``: ``--class-size`` students made from the corpus (a third
the reference, a sixth the stubs, the rest one wrong or differently-right
answer each), and prints the wall time and the time per student.
"""

from __future__ import annotations

import json
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from grader import corpus

REPO = Path(__file__).resolve().parent.parent
FOLDERS = {"solutions": REPO / "solutions", "stubs": REPO / "exercises"}


def time_grading(folder: Path, seed: int) -> tuple[float, dict]:
    """Seconds for one ``grade`` run of ``folder``, and its JSON report."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "result.json"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "grader", "grade", str(folder), "--quiet", "--seed", str(seed),
                        "--json", str(report)], cwd=REPO, check=True, stdout=subprocess.DEVNULL)
        return time.perf_counter() - start, json.loads(report.read_text())


def phase_times(report: dict) -> dict[str, float]:
    """{phase: seconds}: the report's phases, then every check as ``check exercise/check``."""
    times = dict(report.get("phases", {}))
    for exercise in report["exercises"]:
        for check in exercise["checks"]:
            times[f"check {exercise['name']}/{check['name']}"] = check["duration_s"]
    return times


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


def run(repeats: int, seed: int, class_size: int, batch_jobs: list[int]) -> int:
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
    for jobs in batch_jobs if class_size else []:
        seconds = time_batch(class_size, jobs, seed)
        print(f"batch of {class_size} students, --jobs {jobs}: {seconds:6.1f} s ({seconds / class_size:.1f} s a student)",
              flush=True)
    return 0


def _jobs_list(text: str) -> list[int]:
    import argparse

    try:
        jobs = [int(part) for part in text.split(",")]
    except ValueError:
        raise argparse.ArgumentTypeError(f"--batch-jobs takes numbers separated by commas, like 1,2; got {text!r}") from None
    if not jobs or min(jobs) < 1:
        raise argparse.ArgumentTypeError("--batch-jobs: every number must be at least 1")
    return jobs


def add_command(commands) -> None:
    bench = commands.add_parser("bench", help="time the grading of solutions/ and of the stubs, phase by phase, and a class")
    bench.add_argument("--repeats", type=int, default=3, help="runs per folder (default 3)")
    bench.add_argument("--seed", type=int, default=0, help="seed of the randomized inputs (default 0)")
    bench.add_argument("--class-size", type=int, default=30, help="students in the batch measurement (default 30; 0 skips it)")
    bench.add_argument("--batch-jobs", type=_jobs_list, default=[2], metavar="N[,N]",
                       help="--jobs values to time the class with (default 2)")
    bench.set_defaults(run=_run)


def _run(args) -> int:
    if args.repeats < 1 or args.class_size < 0:
        print("python -m grader bench: error: --repeats must be at least 1 and --class-size at least 0", file=sys.stderr)
        return 2
    return run(args.repeats, args.seed, args.class_size, args.batch_jobs)
