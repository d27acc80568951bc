"""``python -m grader bench --throughput N``: how much the grader's throughput figure moves on this machine.

Measures the figure (:mod:`grader.engine.throughput`) of the reference and
of some right answers of the corpus N times each, in turn (one sandbox per
submission, kept for all the rounds, so that a busy spell slows them
alike), and prints, per submission and level, the median of the N figures,
their lowest and highest, and the lowest and highest single round. An
instructor who gives the figure points picks a threshold below the lowest
figure a right answer reached (grader/docs/throughput.md).
"""

from __future__ import annotations

import statistics
import tempfile
from pathlib import Path

from grader.engine import provenance, throughput
from grader.engine.runner import PROBE_MODULES
from grader.paths import REPO
from grader.registry import CONTRACT_FILES
from grader.sandbox import Sandbox
from grader.tools.authoring import corpus

#: The right answers measured beside the reference by default (corpus ids).
DEFAULT_ANSWERS = ("right/tokens/sliding_window_view", "right/tokens/reduce_reopens",
                   "right/tokens/memmap_per_call")


def submissions(answers: list[str], folder: Path) -> dict[str, Path]:
    """{name: submission folder}: the reference, then each corpus answer assembled under ``folder``."""
    entries = {e.id: e for e in corpus.entries("right")}
    unknown = [a for a in answers if a not in entries]
    if unknown:
        raise ValueError(f"not right answers of the corpus: {unknown}; choose from {sorted(entries)}")
    found = {"reference": REPO / "solutions"}
    for answer in answers:
        found[answer.rpartition("/")[2]] = corpus.assemble(entries[answer], folder / answer.replace("/", "_"))
    return found


def measure_noise(repeats: int, answers: list[str], seed: int) -> int:
    """Print the figures' spread (see the module docstring); 0."""
    with tempfile.TemporaryDirectory() as tmp:
        folders = submissions(answers, Path(tmp))
        figures: dict[str, list[dict]] = {name: [] for name in folders}
        sandboxes = {name: Sandbox(folder, files=CONTRACT_FILES, probe_modules=PROBE_MODULES).__enter__()
                     for name, folder in folders.items()}
        try:
            machine = {"cpu": provenance.cpu_model()}
            for number in range(repeats):
                for name, sandbox in sandboxes.items():
                    figures[name].append(throughput.measure(sandbox, seed + number, {**machine, "isolation": sandbox.isolation.level}))
        finally:
            for sandbox in sandboxes.values():
                sandbox.close()
    level = next(iter(sandboxes.values())).isolation.level
    print(f"throughput figures, {repeats} per submission, in turn ({machine['cpu']}, {level}, 0 workers); "
          "share of the raw gather: median of the figures [lowest-highest figure] (lowest-highest single round)")
    for name, found in figures.items():
        measured = [f for f in found if f["status"] == "measured"]
        print(f"  {name}: {len(measured)} of {len(found)} measured" + "".join(
            f"; {f['reason']}" for f in found if f["status"] != "measured"), flush=True)
        for level_name in throughput.LEVELS:
            medians = [f["levels"][level_name]["share"] for f in measured]
            if medians:
                low = min(f["levels"][level_name]["low"] for f in measured)
                high = max(f["levels"][level_name]["high"] for f in measured)
                print(f"    {level_name:<14} {100 * statistics.median(medians):5.1f} % [{100 * min(medians):5.1f}-"
                      f"{100 * max(medians):5.1f} %] ({100 * low:.1f}-{100 * high:.1f} %)")
        seconds = [f.get("seconds", 0) for f in measured]
        if seconds:
            print(f"    seconds per measurement: median {statistics.median(seconds):.2f}, max {max(seconds):.2f}")
    return 0
