"""``python -m grader scoreboard``: the evidence that the grader can be trusted.

The entries come from the corpus itself (the wrong and right answers of
grader/exercises/<exercise>/corpus/, the hostile submissions and
repositories of grader/tests/corpus/); their outcomes
from a pytest run of the corpus tests (``test_corpus_answers.py``,
``test_corpus_hostile.py``, ``test_public_catch.py``,
``test_class_of_30.py``, the same tests the suite runs), read from its JUnit
report. It prints:

    wrong answers caught             X/Y   (each loses points in its own exercise, with a message, for its promises only)
    right answers accepted           A/B   (each scores full marks)
    hostile submissions contained    C/D   (bounded time, right score, complete report, no leftovers, no secret;
                                           each entry in the jail, and in the simulated Gradescope container where it has a [container] table)
    hostile repositories contained   E/F   (graded in the class of 30: the row its expect.toml says)
    wrong answers the public tests catch, per exercise, and the ones left to the grader on purpose (and why)
    points lost per wrong answer: the median, how many lose more than 10 of 20, and per answer the checks it
    fails and the points it loses (recorded by test_corpus_answers in the report's properties)

and every entry that did not hold, or that the report does not mention (not
run: a renamed or deselected test shows up here, never as a silent 0/0).
``--from-junit FILE`` reads the report of an earlier run (.ci/run writes
one). Exit status 0 when everything held, 1 otherwise, 2 when pytest could
not run.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass, field
from pathlib import Path

from grader.paths import REPO
from grader.registry import EXERCISES
from grader.tools.authoring import corpus

TEST_FILES = ("grader/tests/test_corpus_answers.py", "grader/tests/test_corpus_hostile.py", "grader/tests/test_public_catch.py",
              "grader/tests/test_class_of_30.py")
#: kind -> (test function that judges an entry of that kind, what holding means)
JUDGES = {
    "wrong": ("test_wrong_answer_loses_points_with_a_message", "wrong answers caught"),
    "right": ("test_right_answer_scores_full_marks", "right answers accepted"),
    "hostile": ("test_hostile_submission", "hostile submissions contained"),
    "repositories": ("test_hostile_repository", "hostile repositories contained"),
    "public": ("test_public_tests_catch_wrong_answer", "wrong answers the public tests catch"),
}


#: The kinds whose every entry must hold (the public tests' catch rate is reported, some misses are on purpose).
GRADED = ("wrong", "right", "hostile", "repositories")
#: A wrong answer that loses more than this many points (of an exercise's 20) is counted apart: one mistake, one deduction.
MANY_POINTS = 10


@dataclass
class EntryOutcome:
    """What the report says of one corpus entry under one judge: "held", "failed", "hidden" (an expected
    failure, on purpose), "skipped", or "not run"; and the test's recorded properties (for a wrong answer's
    grading: ``failed_checks`` and ``points_lost``)."""

    state: str
    seconds: float = 0.0
    message: str = ""
    properties: dict = field(default_factory=dict)


def corpus_ids() -> dict[str, list[str]]:
    """The entries of each kind, from the corpus folders (never from test names)."""
    names, repositories = (sorted(p.name for p in (corpus.CORPUS / kind).iterdir() if (p / "expect.toml").is_file())
                           for kind in ("hostile", "repositories"))
    hostile = [f"{name}-{where}" for name in names for where in corpus.hostile_places(name)]
    wrong = [e.id for e in corpus.entries("wrong")]
    return {"wrong": wrong, "right": [e.id for e in corpus.entries("right")], "hostile": hostile,
            "repositories": repositories, "public": wrong}


def read_junit(path: Path) -> dict[tuple[str, str], EntryOutcome]:
    """{(function, entry id): EntryOutcome} for every corpus test case in a JUnit report."""
    found = {}
    functions = {function for function, _ in JUDGES.values()}
    for case in ET.parse(path).getroot().iter("testcase"):
        function, _, rest = case.get("name", "").partition("[")
        if function not in functions or not rest:
            continue
        problem = case.find("failure") if case.find("failure") is not None else case.find("error")
        skipped = case.find("skipped")
        if skipped is not None and "xfail" in (skipped.get("type", "") + skipped.get("message", "")).lower():
            state = "hidden"
        elif skipped is not None:
            state = "skipped"
        else:
            state = "held" if problem is None else "failed"
        message = (problem.get("message") if problem is not None else skipped.get("message") if skipped is not None else "") or ""
        properties = {p.get("name", ""): p.get("value", "") for p in case.iter("property")}
        found[(function, rest[:-1])] = EntryOutcome(state, float(case.get("time", 0)), message[:300], properties)
    return found


def losses(wrong: dict[str, EntryOutcome]) -> dict[str, tuple[float, list[str]]]:
    """{wrong answer: (points lost, the checks it fails)} for every answer whose grading recorded them."""
    found = {}
    for entry, outcome in wrong.items():
        points = outcome.properties.get("points_lost")
        if points is not None:
            found[entry] = (float(points), outcome.properties.get("failed_checks", "").split())
    return found


def loss_lines(wrong: dict[str, EntryOutcome]) -> list[str]:
    """The points lost per wrong answer: their distribution, then each answer's checks and points, most first."""
    lost = losses(wrong)
    if not lost:
        return []
    points = sorted(p for p, _ in lost.values())
    many = sum(p > MANY_POINTS for p in points)
    lines = ["", f"points lost per wrong answer ({len(lost)} of {len(wrong)} recorded): median {statistics.median(points):g}, "
             f"{many} ({100 * many / len(points):.0f} %) lose more than {MANY_POINTS} of an exercise's 20"]
    for entry, (p, checks) in sorted(lost.items(), key=lambda item: (-item[1][0], item[0])):
        lines.append(f"  {p:>4g}  {entry}: {', '.join(checks) or 'no check failed'}")
    return lines


def outcomes(report: dict[tuple[str, str], EntryOutcome]) -> dict[str, dict[str, EntryOutcome]]:
    """{kind: {entry id: EntryOutcome}} for every corpus entry; "not run" when the report lacks it."""
    return {kind: {entry: report.get((JUDGES[kind][0], entry), EntryOutcome("not run")) for entry in entries}
            for kind, entries in corpus_ids().items()}


def render(by_kind: dict[str, dict[str, EntryOutcome]]) -> str:
    lines = ["grader scoreboard", ""]
    for kind in GRADED:
        entries = by_kind[kind]
        held = sum(o.state == "held" for o in entries.values())
        skipped = sum(o.state == "skipped" for o in entries.values())
        note = f" ({skipped} skipped here)" if skipped else ""
        lines.append(f"  {JUDGES[kind][1]:<34}{held:>4}/{len(entries):<4}{note}")
    public = by_kind["public"]
    caught = sum(o.state == "held" for o in public.values())
    ran = [o for o in public.values() if o.state in ("held", "hidden", "failed")]
    if ran:
        lines.append(f"  {JUDGES['public'][1]:<34}{caught:>4}/{len(public):<4} ({100 * caught / len(public):.0f} %)")
        for exercise in EXERCISES:
            mine = {k: o for k, o in public.items() if k.split("/")[1] == exercise}
            if mine:
                got = sum(o.state == "held" for o in mine.values())
                lines.append(f"    {exercise:<32}{got:>4}/{len(mine):<4} ({100 * got / len(mine):.0f} %)")
    times = [o.seconds for kind in ("wrong", "right", "hostile") for o in by_kind[kind].values() if o.state == "held"]
    if times:
        lines.append(f"  {'grading time per entry':<34}median {statistics.median(times):.1f} s, max {max(times):.1f} s")
    lines += loss_lines(by_kind["wrong"])
    hidden = {k: o for k, o in public.items() if o.state == "hidden"}
    if hidden:
        reasons = {e.id: e.hidden for e in corpus.entries("wrong")}
        lines += ["", "left to the grader on purpose (the public tests do not catch these):"]
        lines += [f"  {k}: {reasons.get(k, o.message)}" for k, o in hidden.items()]
    broken = [(kind, k, o) for kind, entries in by_kind.items() for k, o in entries.items()
              if o.state in ("failed", "not run") and (kind != "public" or ran)]
    if broken:
        lines += ["", "did not hold:"] + [f"  [{JUDGES[kind][1]}] {k}: {o.state}{': ' + o.message if o.message else ''}"
                                          for kind, k, o in broken]
    return "\n".join(lines)


def holds(by_kind: dict[str, dict[str, EntryOutcome]]) -> bool:
    graded = [o for kind in GRADED for o in by_kind[kind].values()]
    public_ran = any(o.state != "not run" for o in by_kind["public"].values())
    return (all(o.state in ("held", "skipped") for o in graded)
            and (not public_ran or all(o.state in ("held", "hidden") for o in by_kind["public"].values())))


def run_corpus_tests(extra: list[str]) -> int:
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "corpus.xml"
        cmd = [sys.executable, "-m", "pytest", *TEST_FILES, "-q", "-p", "no:cacheprovider", f"--junitxml={junit}", *extra]
        print(f"running: {' '.join(cmd[2:])}", file=sys.stderr, flush=True)
        proc = subprocess.run(cmd, cwd=REPO, stdout=sys.stderr)
        if not junit.is_file():
            print(f"python -m grader scoreboard: pytest wrote no report (exit code {proc.returncode})", file=sys.stderr)
            return 2
        by_kind = outcomes(read_junit(junit))
    print(render(by_kind))
    return 0 if holds(by_kind) else 1
