"""``python -m grader scoreboard``: the evidence that the grader can be trusted.

Runs the corpus tests (grader/tests/test_corpus_answers.py and
test_corpus_hostile.py, the same tests the suite runs) in a pytest
subprocess and prints:

    wrong answers caught       X/Y   (each loses points in its own exercise, with a message)
    right answers accepted     A/B   (each scores full marks)
    hostile submissions contained C/D (bounded time, right score, complete report, no leftovers, no secret)
    grading time               median and max over the graded entries

and every entry that did not hold. ``--from-junit FILE`` prints the same
from the JUnit report of an earlier run (.ci/run writes one). Exit status
0 when everything held, 1 otherwise, 2 when pytest could not run.
"""

from __future__ import annotations

import statistics
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
TESTS = {
    "wrong": ("test_corpus_answers.py", "test_wrong_answer_loses_points_with_a_message"),
    "right": ("test_corpus_answers.py", "test_right_answer_scores_full_marks"),
    "hostile": ("test_corpus_hostile.py", "test_hostile_submission"),
}
LABELS = {"wrong": "wrong answers caught", "right": "right answers accepted", "hostile": "hostile submissions contained"}


@dataclass
class Entry:
    kind: str
    name: str
    held: bool
    seconds: float
    message: str


def parse_junit(path: Path) -> list[Entry]:
    """One Entry per corpus test case in a pytest JUnit report."""
    found = []
    for case in ET.parse(path).getroot().iter("testcase"):
        for kind, (_, function) in TESTS.items():
            name = case.get("name", "")
            if name.startswith(function + "["):
                problem = case.find("failure")
                if problem is None:
                    problem = case.find("error")
                skipped = case.find("skipped") is not None
                entry_id = name[len(function) + 1 : -1]
                if not entry_id.startswith(f"{kind}/"):
                    entry_id = f"{kind}/{entry_id}"  # hostile entries are named by folder only
                found.append(Entry(kind, entry_id, problem is None and not skipped,
                                   float(case.get("time", 0)), "" if problem is None else (problem.get("message") or "")[:300]))
    return found


def render(entries: list[Entry]) -> str:
    lines = ["grader scoreboard", ""]
    for kind, label in LABELS.items():
        mine = [e for e in entries if e.kind == kind]
        held = sum(e.held for e in mine)
        lines.append(f"  {label:<32}{held:>4}/{len(mine):<4}{'' if held == len(mine) else '  <-- see below'}")
    times = [e.seconds for e in entries]
    if times:
        lines.append(f"  {'grading time per entry':<32}median {statistics.median(times):.1f} s, max {max(times):.1f} s "
                     f"({max(entries, key=lambda e: e.seconds).name})")
    broken = [e for e in entries if not e.held]
    if broken:
        lines += ["", "did not hold:"] + [f"  {e.name}: {e.message}" for e in broken]
    return "\n".join(lines)


def run(kinds: list[str], extra: list[str]) -> int:
    files = sorted({TESTS[k][0] for k in kinds})
    selector = " or ".join(TESTS[k][1] for k in kinds)
    with tempfile.TemporaryDirectory() as tmp:
        junit = Path(tmp) / "corpus.xml"
        cmd = [sys.executable, "-m", "pytest", *(f"grader/tests/{f}" for f in files), "-k", selector,
               "-q", "-p", "no:cacheprovider", f"--junitxml={junit}", *extra]
        print(f"running: {' '.join(cmd[2:])}", file=sys.stderr, flush=True)
        proc = subprocess.run(cmd, cwd=REPO, stdout=sys.stderr)
        if not junit.is_file():
            print(f"python -m grader scoreboard: pytest wrote no report (exit code {proc.returncode})", file=sys.stderr)
            return 2
        entries = parse_junit(junit)
    print(render(entries))
    return 0 if entries and all(e.held for e in entries) else 1


def add_command(commands) -> None:
    cmd = commands.add_parser("scoreboard", help="grade the wrong, right and hostile corpora and print the score")
    cmd.add_argument("--kinds", default="wrong,right,hostile", help="which corpora (default: wrong,right,hostile)")
    cmd.add_argument("--from-junit", type=Path, metavar="FILE",
                     help="print the scoreboard of an earlier pytest run's JUnit report instead of running the tests")
    cmd.set_defaults(run=_run)


def _run(args) -> int:
    kinds = [k.strip() for k in args.kinds.split(",") if k.strip()]
    unknown = sorted(set(kinds) - set(TESTS))
    if unknown or not kinds:
        print(f"python -m grader scoreboard: error: --kinds takes {', '.join(TESTS)}; got {args.kinds!r}", file=sys.stderr)
        return 2
    if args.from_junit:
        if not args.from_junit.is_file():
            print(f"python -m grader scoreboard: error: {args.from_junit} does not exist", file=sys.stderr)
            return 2
        entries = [e for e in parse_junit(args.from_junit) if e.kind in kinds]
        print(render(entries))
        return 0 if entries and all(e.held for e in entries) else 1
    return run(kinds, [])
