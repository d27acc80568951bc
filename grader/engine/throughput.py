"""The grader's own throughput figure: the student's data path as a share of the raw gather, measured in the grading.

LAB.md's experiment (d), measured where the student cannot print a number:
in the sandbox, at the grading's isolation level, after the tokens checks
passed. A round runs two probes (:mod:`grader.inside.probes.throughput`), in
alternating order: ``levels`` reads the student's ``TokenWindows`` per item,
through ``__getitems__`` and as whole batches with ``read_batch`` (0
workers); ``ceiling`` gathers the same windows straight from a memmap of
the same file, in a fresh process that never imported the submission. Each
level's share of the ceiling is its rate over the ceiling's rate of the same
round; the figure is the median over the rounds, with the lowest and highest.

Who measures what (principle 3: the child's clock is the child's):

* The times are the zygote's: it stamps each mark a probe writes on its
  clock pipe as it reads it (:class:`grader.shared.messages.ProbeResult`
  ``marks``). A submission that changes ``time.perf_counter``,
  ``time.monotonic`` or any clock in its own process changes none of them.
* The ceiling runs in a process the student's code never ran in, so the
  student cannot slow it down to look faster.
* The windows of a round come from its seed, and every stretch's end mark
  carries how many windows it read and the sum of their x tokens, checked
  here: a mark written early, or a stretch that skipped its windows, is
  caught and the figure withheld.
* What the student's code can still do: it runs in the process that writes
  the level marks, so a submission written to game this probe (one that
  writes marks itself, with sums it computed another way) can claim a
  figure. A share above :data:`PLAUSIBLE_SHARE` of the raw gather is
  withheld as implausible; the child's own clock travels in each mark and a
  reading that disagrees with the zygote's is flagged for review. The figure
  carries no points unless the instructor's rubric says so.
"""

from __future__ import annotations

import statistics
import time

import numpy as np

from grader.shared.common import probe_module
from grader.shared.throughput import chained_total, window_starts, x_sums
from grader.shared.token_data import token_data

#: The levels of experiment (d), in the order a round reads them, and the ceiling's name.
LEVELS = ("per item", "__getitems__", "whole batches")
CEILING = "raw gather"
#: The setup: LAB.md's experiment (d) (a 1,000,000-token uint16 file, block 64, batch 64, 0 workers).
SETUP = {"tokens": 1_000_000, "high": 50_257, "block": 64, "batch": 64, "workers": 0}
DATA_SEED = 34  # the token file's content (any file will do; this one is the same for every student)
#: Rounds of the two probes, and what one timed stretch may read: at most SAMPLES windows, or STRETCH_S seconds
#: (by the probe's clock, which only decides how much work a stretch does).
ROUNDS, SAMPLES, STRETCH_S = 4, 8_192, 0.04
#: The most seconds the measurement adds to a grading (probe start-ups included); rounds stop when the next would
#: not fit, and a probe still running at the end is stopped.
BUDGET_S = 3.0
#: A median share above this is withheld: a data path through a DataLoader does not outrun the raw gather it holds.
PLAUSIBLE_SHARE = 1.5
#: The levels probe's peak memory growth (the zygote's measure) over the ceiling's, at this many times the token file's
#: size or more in every round, means the file was read whole: a copy widened to int64 is 4 times its size (honest
#: answers measured here: 0-3 MB over the ceiling on the 1.9 MB file, the int64 copy 6-9 MB; a uint16 copy is not told apart).
MEMORY_MARGIN = 2.5
#: The child's clock over the zygote's, outside this range, is flagged for review (an honest child reads ~1).
CLOCK_AGREEMENT = (0.5, 2.0)


#: The reason of a figure left for later: tokens checks await their confirmation alone (``grade --confirm later``,
#: batch's first phase); :func:`grader.engine.runner.confirm_pending` measures it once they are confirmed.
AWAITING_CONFIRMATION = "measured once the tokens checks that await confirmation are confirmed alone"


def awaits_confirmation(figure: dict) -> bool:
    """Whether ``figure`` was left for :func:`grader.engine.runner.confirm_pending` to measure."""
    return figure.get("status") == "not measured" and figure.get("reason") == AWAITING_CONFIRMATION


class Invalid(ValueError):
    """A probe's marks do not describe the stretches it was asked for."""


def not_measured(reason: str, flag: str = "") -> dict:
    """The figure of a grading that has none, and why (``flag``: a note for the integrity review)."""
    return {"status": "not measured", "reason": reason, **({"flag": flag} if flag else {})}


def answer_of(text: str) -> tuple[str, int]:
    """A stamped mark's text as (the child's line, the zygote's answer): the answer is what follows the last
    :data:`grader.inside.probe_wait.ANSWER_SEPARATOR`, which the zygote writes after whatever the child wrote."""
    line, separator, answer = text.rpartition(" #")
    try:
        return line, int(answer, 16) if separator and len(answer) == 16 else -1
    except ValueError:
        return text, -1


def stretches(marks: list, names: tuple[str, ...], sums: np.ndarray) -> dict:
    """{name: (windows per second by the zygote's stamps, the child's seconds over the zygote's)} from one probe's
    marks; :class:`Invalid` unless they are a start and an end for each of ``names`` in turn, each end with the count
    and x-token sum of the windows its start mark's answer draws (chained batch by batch, after the untimed first)."""
    batch, windows = SETUP["batch"], SETUP["tokens"] - SETUP["block"]
    if len(marks) != 2 * len(names):
        raise Invalid(f"{len(marks)} marks for {len(names)} stretches")
    found = {}
    for name, (at_start, start), (at_end, end) in zip(names, marks[::2], marks[1::2]):
        (start, answer), (end, _) = answer_of(start), answer_of(end)
        parts = end.removeprefix(f"end {name} ").split(" ")
        if start != f"start {name}" or answer < 0 or not end.startswith(f"end {name} ") or len(parts) != 3:
            raise Invalid(f"expected the marks of {name!r}, got {start!r} and {end!r}")
        try:
            count, total, child_s = int(parts[0]), int(parts[1]), float(parts[2])
        except ValueError:
            raise Invalid(f"{name}: unreadable end mark {end!r}") from None
        if not (0 < count <= SAMPLES and count % batch == 0) or at_end <= at_start:
            raise Invalid(f"{name}: {count} windows between stamps {at_start:.6f} and {at_end:.6f}")
        expected = chained_total(window_starts(answer, windows, SAMPLES), sums, count, batch, windows)
        if total != expected:
            raise Invalid(f"{name}: the x tokens of its {count} windows sum to {expected}, its mark says {total}")
        found[name] = (count / (at_end - at_start), child_s / (at_end - at_start))
    return found


def broken_promises(counts: object, growth_mb: float = 0.0, ceiling_growth_mb: float = 0.0) -> list[str]:
    """What the measured run of the student's code did that the tokens checks refuse, from the levels probe's counts
    (made in the student's process: see :mod:`grader.inside.probes.throughput`) and the zygote's measure of each
    probe's peak memory growth (outside it): one memmap read per read_batch and __getitems__ call at most, no memmap
    opened by __init__ or len(), and the file never read whole (by read(2), or into memory the ceiling's process,
    which gathers as many windows from the same file through the same loaders, did not need: pass the smallest
    difference over the rounds)."""
    if not isinstance(counts, dict):
        return ["the levels probe sent back no counts"]
    broken, most = [], counts.get("most_reads_per_call")
    most = most if isinstance(most, dict) else {}
    for level in ("__getitems__", "whole batches"):
        reads = most.get(level)
        if not isinstance(reads, int) or reads > 1:
            broken.append(f"{level} indexed the memmap {reads} times in one call (one gather per batch)")
    size = counts.get("file_bytes") if isinstance(counts.get("file_bytes"), int) else 2 * SETUP["tokens"]
    if counts.get("opened_by_init") != 0:
        broken.append(f"__init__ and len() opened {counts.get('opened_by_init')} memmap(s) (laziness)")
    read = counts.get("bytes_read")
    if isinstance(read, int) and read >= size // 2:
        broken.append(f"{read:,} bytes were read from files while the {size:,}-byte token file was read (laziness: "
                      "never read whole)")
    if growth_mb - ceiling_growth_mb >= MEMORY_MARGIN * size / 2**20:
        broken.append(f"the student's process grew {growth_mb - ceiling_growth_mb:.1f} MB more than the raw gather's in "
                      f"every round, on a {size / 2**20:.1f} MB token file (laziness: never read whole)")
    return broken


def measure(sandbox, seed: int, machine: dict, timeout_scale: float = 1.0, budget_s: float = BUDGET_S) -> dict:
    """The throughput figure of the submission in ``sandbox`` (whose tokens checks passed), within ``budget_s``.

    ``machine`` says where it ran ({"cpu", "isolation"}); ``seed`` (the grading's) draws the rounds' windows.
    Returns ``{"status": "measured", "levels": {level: {"share", "low", "high", "samples_per_s"}},
    "ceiling_samples_per_s", "rounds", "child_clock_ratio", "machine", "setup", "measured_by"}`` (shares are
    fractions of the ceiling: median, lowest and highest over the rounds), or :func:`not_measured`'s dict.
    """
    started = time.monotonic()
    deadline = started + budget_s
    settings = {k: SETUP[k] for k in ("tokens", "high", "block", "batch")}
    sums = x_sums(token_data(SETUP["tokens"], np.uint16, DATA_SEED, SETUP["high"]), SETUP["block"])
    seeds = np.random.default_rng([seed, DATA_SEED])
    rounds, longest, replaced, extra_mb = [], 0.0, set(), []
    for number in range(ROUNDS):
        if rounds and time.monotonic() + longest > deadline:
            break
        began, round_seed = time.monotonic(), int(seeds.integers(2**31))  # draws the untimed first batches only
        args = dict(settings, data_seed=DATA_SEED, seed=round_seed, samples=SAMPLES, seconds=STRETCH_S)
        rates, results = {}, {}
        for probe in (("ceiling", "levels") if number % 2 == 0 else ("levels", "ceiling")):
            remaining = deadline + 1.0 - time.monotonic()  # the last probe may end up to a second past the budget
            if remaining < 0.5:
                return not_measured(f"too slow to measure within the grading's budget of {budget_s:g} s")
            result = sandbox.run(f"{probe_module('throughput')}:{probe}", args, timeout=remaining * timeout_scale)
            if result.status == "timeout":
                return not_measured(f"too slow to measure within the grading's budget of {budget_s:g} s")
            if not result.ok:
                return not_measured(f"the {probe} probe did not finish: {result.error[:300]}")
            try:
                rates.update(stretches(result.marks, (CEILING,) if probe == "ceiling" else LEVELS, sums))
            except Invalid as exc:
                why = f"the throughput marks did not match the windows asked for ({exc})"
                return not_measured(why, flag=why if probe == "levels" else "")
            replaced.update(flag.name for flag in result.flags)
            results[probe] = result
        broken = broken_promises(results["levels"].data)
        extra_mb.append(results["levels"].rss_growth_mb - results["ceiling"].rss_growth_mb)
        if broken:
            why = f"the measured run broke what the tokens checks judge: {'; '.join(broken)[:600]}"
            return not_measured(why, flag=why)
        rounds.append(rates)
        longest = max(longest, time.monotonic() - began)
    broken = broken_promises(results["levels"].data, min(extra_mb), 0.0)
    if broken:
        why = f"the measured run broke what the tokens checks judge: {'; '.join(broken)[:600]}"
        return not_measured(why, flag=why)
    figure = dict(_figure(rounds, machine, time.monotonic() - started), memory_over_ceiling_mb=round(min(extra_mb), 1))
    if replaced and figure["status"] == "measured":
        note = f"the student's code replaced {', '.join(sorted(replaced)[:5])} while the throughput was measured"
        figure["flag"] = "; ".join(filter(None, (figure.get("flag"), note)))
    return figure


def _figure(rounds: list[dict], machine: dict, seconds: float) -> dict:
    """Medians and ranges over the rounds of each level's share of its round's ceiling."""
    levels = {}
    for name in LEVELS:
        shares = [r[name][0] / r[CEILING][0] for r in rounds]
        levels[name] = {"share": round(statistics.median(shares), 4), "low": round(min(shares), 4),
                        "high": round(max(shares), 4), "samples_per_s": round(statistics.median(r[name][0] for r in rounds))}
    ratio = round(statistics.median(r[name][1] for r in rounds for name in LEVELS), 3)
    figure = {"status": "measured", "levels": levels,
              "ceiling_samples_per_s": round(statistics.median(r[CEILING][0] for r in rounds)),
              "rounds": len(rounds), "child_clock_ratio": ratio, "seconds": round(seconds, 2),
              "machine": {**machine, "start_method": "none (0 workers: the probe's own process reads)"},
              "setup": dict(SETUP), "measured_by": "the sandbox zygote's clock, outside the student's process"}
    top = max(levels.values(), key=lambda level: level["share"])
    if top["share"] > PLAUSIBLE_SHARE:
        why = f"a share of {top['share']:.0%} of the raw gather is implausible for a data path that contains it"
        return {**not_measured(why, flag=why), "withheld": figure}
    low, high = CLOCK_AGREEMENT
    if not low <= ratio <= high:
        figure["flag"] = (f"the clock inside the student's process read {ratio:g} times the grader's during the "
                          "throughput measurement (the figure is the grader's)")
    return figure
