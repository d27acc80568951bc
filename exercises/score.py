"""Your local score: which promises of each docstring the public tests show kept.

    python -m exercises.score                 # every public test (workers and the lab included)
    python -m exercises.score --quick         # the quick loop only (no worker processes): seconds
    python -m exercises.score collate tokens  # some exercises only

Runs the public tests (``python -m pytest tests``) and prints, per exercise,
how many of its docstring's promises they show kept, and for each promise
they do not, the sentence it is and the tests that failed on it. A promise
counts as kept when at least one of its tests ran and none failed; one
whose tests did not run here (the quick loop, or a start method your
machine lacks) is counted apart.

This is not your grade. The grade is the hidden grader's: it checks the same
promises with inputs of its own and more edge cases, in worker processes
under every start method, and some of its checks have points the public
tests cannot show. Exit status: 0 when every promise that ran is shown kept,
1 otherwise.
"""

from __future__ import annotations

import argparse
import subprocess
import sys
import tempfile
import textwrap
import tomllib
import xml.etree.ElementTree as ET
from pathlib import Path

PACKAGE = __spec__.parent if __spec__ and __spec__.parent else "exercises"
ROOT = Path(__file__).resolve().parent.parent
PROMISES = ROOT / "tests" / "promises.toml"
QUOTE_CHARS = 110


def parse_args(argv=None):
    parser = argparse.ArgumentParser(prog=f"python -m {PACKAGE}.score", description=__doc__.split("\n\n")[0])
    parser.add_argument("exercises", nargs="*", metavar="EXERCISE", help="the exercises to score (default: all)")
    parser.add_argument("--quick", action="store_true", help="run only the tests that start no worker process")
    return parser.parse_args(argv)


def run_tests(selection: str, report: Path) -> int:
    """Run the public tests selected by the marker expression; pytest's exit status."""
    command = [sys.executable, "-m", "pytest", "tests", "--impl", PACKAGE, "-q", "-p", "no:cacheprovider",
               f"--junitxml={report}"] + (["-m", selection] if selection else [])
    print(f"running: {' '.join(command[1:])}", flush=True)
    return subprocess.run(command, cwd=ROOT, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL).returncode


def outcomes(report: Path) -> dict[str, list[tuple[str, str]]]:
    """{test_file.py::test_name: [(outcome, first line of its failure), ...]}, one pair per run (parameters apart)."""
    found: dict[str, list[tuple[str, str]]] = {}
    for case in ET.parse(report).getroot().iter("testcase"):
        test = f"{case.get('classname', '').rpartition('.')[2]}.py::{case.get('name', '').partition('[')[0]}"
        problem = case.find("failure") if case.find("failure") is not None else case.find("error")
        if problem is not None:
            message = (problem.get("message") or problem.text or "failed").strip().splitlines()
            found.setdefault(test, []).append(("failed", message[0] if message else "failed"))
        elif case.find("skipped") is None:
            found.setdefault(test, []).append(("passed", ""))
    return found


def verdicts(promises: list[dict], ran: dict[str, list[tuple[str, str]]]):
    """Per promise: ("kept", []), ("failed", [(test, message)]) or ("not run", [])."""
    for promise in promises:
        runs = [(test, outcome, message) for test in promise["tests"] for outcome, message in ran.get(test, [])]
        failed = [(test, message) for test, outcome, message in runs if outcome == "failed"]
        yield promise, ("failed" if failed else "kept" if runs else "not run"), failed


def shorten(text: str) -> str:
    return text if len(text) <= QUOTE_CHARS else text[: QUOTE_CHARS - 3].rstrip() + "..."


def main(argv=None) -> int:
    args = parse_args(argv)
    lab = tomllib.loads((ROOT / "lab.toml").read_text(encoding="utf-8"))["exercise"]
    known = [entry["name"] for entry in lab]
    unknown = [name for name in args.exercises if name not in known]
    if unknown:
        print(f"no exercise {', '.join(unknown)}: the exercises are {', '.join(known)}", file=sys.stderr)
        return 2
    chosen = args.exercises or known
    try:
        promises = tomllib.loads(PROMISES.read_text(encoding="utf-8"))["promise"]
    except (OSError, tomllib.TOMLDecodeError, KeyError) as exc:
        print(f"cannot read {PROMISES}: {exc}; it comes with the template (restore it with git checkout tests/)",
              file=sys.stderr)
        return 2
    selection = " or ".join(chosen) if args.exercises else ""
    if args.quick:
        selection = f"({selection}) and not workers" if selection else "not workers"
    with tempfile.TemporaryDirectory() as folder:
        report = Path(folder) / "junit.xml"
        code = run_tests(selection, report)
        if not report.is_file():
            print(f"pytest ran no tests (exit status {code}): run python -m pytest tests to see why", file=sys.stderr)
            return 2
        ran = outcomes(report)
    handouts = {entry["name"]: entry.get("handout", "") for entry in lab}
    rows, details, all_kept = [], [], True
    for exercise in chosen:
        judged = list(verdicts([p for p in promises if p["id"].partition(".")[0] == exercise], ran))
        kept = sum(status == "kept" for _, status, _ in judged)
        failed = [(p, f) for p, status, f in judged if status == "failed"]
        not_run = sum(status == "not run" for _, status, _ in judged)
        all_kept &= not failed
        rows.append(f"| {exercise} | {kept} of {len(judged)} | {len(failed)} | {not_run} |")
        messages = [message for _, failures in failed for _, message in failures]
        if messages and all(message.startswith("not done yet") for message in messages):
            details += ["", f"{exercise}: {textwrap.shorten(messages[0], 150, placeholder=' ...')}"]
        elif failed:
            where = f" (LAB.md, \"{handouts[exercise]}\")" if handouts.get(exercise) else ""
            details += ["", f"{exercise}: {len(failed)} promise(s) the public tests do not show kept{where}:"]
            for promise, failures in failed:
                (test, message), more = failures[0], len({test for test, _ in failures}) - 1
                details.append(f"  - {promise['doc']}: \"{shorten(promise['quote'])}\"")
                details.append("      " + textwrap.shorten(f"{test}: {message}", 150, placeholder=" ...")
                               + (f" (and {more} more test(s))" if more else ""))
    print()
    print("| Exercise | Promises shown kept | Failing | Not run here |")
    print("| --- | --- | --- | --- |")
    print("\n".join(rows))
    print("\n".join(details))
    print()
    print("This is not your grade. The grade is the hidden grader's: it checks the same promises with inputs of its own,")
    print("more edge cases and real workers under every start method; the public tests show each promise on fixed inputs.")
    return 0 if all_kept else 1


if __name__ == "__main__":
    sys.exit(main())
