"""The instructor's command line: ``python -m grader COMMAND``.

Commands:
    grade      grade one submission folder and write the reports
    generate   write exercises/ from solutions/ (``--check`` only compares)
    batch      grade a class: one folder per student -> gradebook, summary, feedback
    merge      combine the outputs of several batch runs
    release    write the student template repository
    publish    write the grader alone, for the repository the student workflow fetches
    bench      time the grading of solutions/ and of the stubs
    scoreboard grade the wrong, right and hostile corpora and print how many held

Exit status: 0 when the command did its job (whatever the score), 1 for
``generate --check`` with stale files, 2 for bad arguments or a grader fault.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent


def cmd_generate(args) -> int:
    from grader.stubs import StubError, stale_files, write_exercises

    try:
        if args.check:
            stale = stale_files(args.solutions, args.exercises)
            for name in stale:
                print(f"{args.exercises / name} differs from what generation writes", file=sys.stderr)
            if stale:
                print("run: python -m grader generate", file=sys.stderr)
            return 1 if stale else 0
        changed = write_exercises(args.solutions, args.exercises)
    except StubError as exc:
        print(f"error: {exc}", file=sys.stderr)
        return 2
    print(f"wrote {len(changed)} file(s) to {args.exercises}: {', '.join(changed) or 'nothing changed'}")
    return 0


def cmd_grade(args) -> int:
    from grader.report_files import ReportPathError
    from grader.results import EXERCISES
    from grader.rubric import RubricError
    from grader.runner import GraderFault, grade
    from grader.sandbox import SandboxError
    from grader.writers import to_console, write_all

    only = [name.strip() for name in args.only.split(",")] if args.only else None
    unknown = sorted(set(only or []) - set(EXERCISES))
    if unknown:
        return usage_error(f"--only: unknown exercise(s) {unknown}; choose from {', '.join(EXERCISES)}")
    progress = (lambda message: print(message, file=sys.stderr, flush=True)) if not args.quiet else None

    def report(result) -> None:  # runs before the sandbox is cleaned up
        print(to_console(result, color=sys.stdout.isatty()), flush=True)
        write_all(result, json=args.json, markdown=args.markdown, gradescope=args.gradescope, junit=args.junit)

    try:
        grade(args.submission, seed=args.seed, only=only, gpu=args.gpu, rubric_path=args.rubric,
              fail_fast=args.fail_fast, progress=progress, jail=args.jail, report=report)
    except (FileNotFoundError, ValueError, RubricError, ReportPathError) as exc:
        return usage_error(str(exc))
    except (GraderFault, SandboxError) as exc:
        print(f"grader fault (not the submission's): {exc}", file=sys.stderr)
        return 2
    return 0


def usage_error(message: str) -> int:
    print(f"python -m grader: error: {message}", file=sys.stderr)
    return 2


def seed_value(text: str) -> int:
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be a whole number, got {text!r}") from None
    if not 0 <= seed < 2**63:
        raise argparse.ArgumentTypeError(f"seed must be between 0 and 2**63 - 1, got {seed}")
    return seed


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m grader", description="Instructor tools of the data-loading lab.")
    commands = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")

    from grader.rubric import DEFAULT_RUBRIC

    grade = commands.add_parser("grade", help="grade one submission folder", description=(
        "Grade the five exercise files of SUBMISSION in a sandbox and print the report. "
        "Exit status 0 whatever the score; 2 for bad arguments or a grader fault."))
    grade.add_argument("submission", nargs="?", type=Path, default=REPO / "exercises",
                       help="folder holding collate.py, sharding.py, seeding.py, bucketing.py, tokens.py (default: exercises/)")
    grade.add_argument("--json", type=Path, metavar="FILE", help="write the result as JSON")
    grade.add_argument("--markdown", type=Path, metavar="FILE", help="write a Markdown report (e.g. $GITHUB_STEP_SUMMARY, appended to)")
    grade.add_argument("--gradescope", type=Path, metavar="FILE", help="write Gradescope's results.json")
    grade.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    grade.add_argument("--seed", type=seed_value, help="seed of the randomized inputs (default: a fresh one, shown in the report)")
    grade.add_argument("--only", metavar="EXERCISE[,EXERCISE]", help="grade only these exercises")
    grade.add_argument("--gpu", choices=("auto", "on", "off"), default="auto",
                       help="pin_memory checks on CUDA: auto (if a device is present), on (required), off")
    grade.add_argument("--rubric", type=Path, default=DEFAULT_RUBRIC, metavar="FILE", help="points and visibility per check (default: grader/rubric.toml)")
    grade.add_argument("--jail", choices=("auto", "required", "off"), default="auto",
                       help="run the student's code in a bubblewrap jail: auto (where one can be made; else the "
                            "report says isolation: weak), required (exit 2 without one), off")
    grade.add_argument("--fail-fast", action="store_true", help="stop at the first check that does not pass (a quick look, not a grade)")
    grade.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    grade.set_defaults(run=cmd_grade)

    generate = commands.add_parser("generate", help="write exercises/ (stubs) from solutions/")
    generate.add_argument("--solutions", type=Path, default=REPO / "solutions", help="reference solutions (default: solutions/)")
    generate.add_argument("--exercises", type=Path, default=REPO / "exercises", help="where the stubs go (default: exercises/)")
    generate.add_argument("--check", action="store_true", help="only report files that differ; exit 1 if any")
    generate.set_defaults(run=cmd_generate)

    from grader import batch, bench, bundles, publish, release, scoreboard, server_record, verdict

    batch.add_commands(commands)
    release.add_command(commands)
    publish.add_command(commands)
    bench.add_command(commands)
    scoreboard.add_command(commands)
    verdict.add_command(commands)
    server_record.add_command(commands)
    bundles.add_commands(commands)
    return parser


def main(argv: list[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    return args.run(args)
