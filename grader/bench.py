"""``python -m grader bench``: wall time of grading the reference and the stubs.

Each grading runs as its own ``python -m grader grade`` process, as an
instructor or a workflow would run it, alternating between the two folders
so that a busy machine slows both alike. Prints median and max per folder.
"""

from __future__ import annotations

import json
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def time_grading(folder: Path, seed: int) -> tuple[float, str]:
    """Seconds for one ``grade`` run of ``folder``, and the score it reported."""
    with tempfile.TemporaryDirectory() as tmp:
        report = Path(tmp) / "result.json"
        start = time.perf_counter()
        subprocess.run([sys.executable, "-m", "grader", "grade", str(folder), "--quiet", "--seed", str(seed), "--json", str(report)],
                       cwd=REPO, check=True, stdout=subprocess.DEVNULL)
        seconds = time.perf_counter() - start
        data = json.loads(report.read_text())
        return seconds, f"{data['score']:g}/{data['max_score']:g}"


def run(repeats: int, seed: int) -> int:
    folders = {"solutions": REPO / "solutions", "stubs (exercises)": REPO / "exercises"}
    times: dict[str, list[float]] = {name: [] for name in folders}
    scores: dict[str, set[str]] = {name: set() for name in folders}
    for round_ in range(1, repeats + 1):
        for name, folder in folders.items():
            seconds, score = time_grading(folder, seed)
            times[name].append(seconds)
            scores[name].add(score)
            print(f"  round {round_}: {name:<18} {seconds:6.1f} s  {score}", file=sys.stderr, flush=True)
    print(f"grading wall time, {repeats} alternating runs, seed {seed} (process start to exit):")
    for name in folders:
        print(f"  {name:<18} median {statistics.median(times[name]):6.1f} s   max {max(times[name]):6.1f} s   score {', '.join(sorted(scores[name]))}")
    return 0


def add_command(commands) -> None:
    bench = commands.add_parser("bench", help="time the grading of solutions/ and of the stubs")
    bench.add_argument("--repeats", type=int, default=3, help="runs per folder (default 3)")
    bench.add_argument("--seed", type=int, default=0, help="seed of the randomized inputs (default 0)")
    bench.set_defaults(run=lambda args: run(args.repeats, args.seed) if args.repeats >= 1 else _bad_repeats())


def _bad_repeats() -> int:
    print("python -m grader bench: error: --repeats must be at least 1", file=sys.stderr)
    return 2
