"""``python -m grader grade [SUBMISSION]``: grade one submission folder and write the reports.

Exit status 0 whatever the score; 2 for bad arguments, a refused submission
folder or report path, or a grader fault (an isolation below
``--min-isolation`` included).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

from grader.commands import CommandError
from grader.isolation import LEVELS
from grader.paths import REPO
from grader.registry import CONTRACT_FILES, EXERCISES

HELP = "grade one submission folder"
DESCRIPTION = (f"Grade the exercise files of SUBMISSION ({', '.join(CONTRACT_FILES)}) in the jailed sandbox and "
               "print the report. Exit status 0 whatever the score; 2 for bad arguments or a grader fault.")


def seed_value(text: str) -> int:
    try:
        seed = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"seed must be a whole number, got {text!r}") from None
    if not 0 <= seed < 2**63:
        raise argparse.ArgumentTypeError(f"seed must be between 0 and 2**63 - 1, got {seed}")
    return seed


def timeout_scale_value(text: str) -> float:
    from grader.engine.runner import timeout_scale_problem

    try:
        scale = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"timeout scale must be a number, got {text!r}") from None
    if problem := timeout_scale_problem(scale):
        raise argparse.ArgumentTypeError(problem)
    return scale


def add_arguments(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("submission", nargs="?", type=Path, default=REPO / "exercises",
                        help="folder holding the exercise files (default: exercises/)")
    parser.add_argument("--json", type=Path, metavar="FILE", help="write the result as JSON")
    parser.add_argument("--markdown", type=Path, metavar="FILE",
                        help="write a Markdown report (e.g. $GITHUB_STEP_SUMMARY, appended to)")
    parser.add_argument("--gradescope", type=Path, metavar="FILE", help="write Gradescope's results.json")
    parser.add_argument("--junit", type=Path, metavar="FILE", help="write JUnit XML")
    parser.add_argument("--seed", type=seed_value, help="seed of the randomized inputs (default: a fresh one, in the report)")
    parser.add_argument("--secret-seed-fd", type=int, metavar="FD",
                        help="read a student's secret seed of record (decimal) from file descriptor FD, e.g. 0 for "
                             "stdin (batch and the hosts pass a pipe): never on a command line, which any process can "
                             "read; the JSON report keeps it, the reports a student reads leave it out")
    parser.add_argument("--secret-seed", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--seed-from-repository", metavar="OWNER/NAME",
                        help="the push feedback's seed: a public function of the repository's name ($GITHUB_REPOSITORY), "
                             "so that the same files always get the same score and feedback; the reports say that the "
                             "grade of record uses other inputs of the same kind")
    parser.add_argument("--only", metavar="EXERCISE[,EXERCISE]", help="grade only these exercises")
    parser.add_argument("--gpu", choices=("auto", "on", "off"), default="auto",
                        help="pin_memory checks on CUDA: auto (if a device is present), on (required), off")
    parser.add_argument("--rubric", type=Path, default=None, metavar="FILE",
                        help="a course's points and visibility for this term: its lines replace the shipped ones "
                             "(the points of each [[promise]] of grader/exercises/<exercise>/promises.toml)")
    parser.add_argument("--jail", choices=("auto", "off"), default="auto",
                        help="bubblewrap's namespaces for the student's code: auto (where they can be made), off (never; "
                             "for comparisons)")
    parser.add_argument("--layers", choices=("on", "off"), default="on",
                        help="the kernel's layers (Landlock and seccomp) for the student's code, with namespaces or "
                             "without: on (where the kernel has them), off (never; for comparisons)")
    parser.add_argument("--min-isolation", choices=LEVELS, default="weak",
                        help="refuse to grade (exit 2) below this isolation level: jail (namespaces), contained "
                             "(Landlock and seccomp without namespaces) or weak (default: grade anyway; the report says the level)")
    parser.add_argument("--timeout-scale", type=timeout_scale_value, default=1.0, metavar="FACTOR",
                        help="multiply every time limit of the student's code (preflight 20 s, probes 30 s, worker "
                             "probes 60 s) by FACTOR, from 0.1 to 3: above 1 on a host much slower than a laptop; "
                             "the report records it (default 1)")
    parser.add_argument("--throughput", choices=("on", "off"), default="on",
                        help="the grader's throughput figure (grader/docs/throughput.md): on (default: measured, about "
                             "2 s, when every tokens check passes), off (not measured; a rubric that gives it points "
                             "then gives none)")
    parser.add_argument("--fail-fast", action="store_true",
                        help="stop at the first check that does not pass (a quick look, not a grade)")
    parser.add_argument("--quiet", action="store_true", help="no progress lines on stderr")
    parser.add_argument("--confirm", choices=("now", "later"), default="now",
                        help="when a timeout (or a check that failed while other processes overloaded the machine) is "
                             "confirmed alone: now (at the end of this grading; default) or later (left pending in the "
                             "report, for --confirm-from: batch confirms once the class is graded, one at a time)")
    parser.add_argument("--confirm-from", type=Path, metavar="REPORT",
                        help="confirm alone the pending checks of the JSON report REPORT (graded with --confirm later) "
                             "against SUBMISSION, with its seed, keep every other verdict, and write the reports "
                             "(--json may be REPORT itself)")


def run(args: argparse.Namespace) -> int:
    from grader.engine.rubric import RubricError
    from grader.engine.runner import GraderFault, confirm_pending, grade
    from grader.engine.secret_seed import read_seed
    from grader.engine.seeds import feedback_seed
    from grader.report_files import ReportPathError
    from grader.sandbox import SandboxError
    from grader.writers import to_console, write_all

    if args.secret_seed:
        raise CommandError("a seed of record never goes on a command line (any process can read /proc/PID/cmdline): "
                           "give it on a file descriptor, e.g. --secret-seed-fd 0 < seed.txt")
    secret = args.secret_seed_fd is not None
    if secret:
        if args.seed is not None:
            raise CommandError("--seed and --secret-seed-fd both give the seed: give one")
        try:
            args.seed = read_seed(args.secret_seed_fd)
        except ValueError as exc:
            raise CommandError(str(exc)) from None
    repository = args.seed_from_repository
    if repository is not None:
        if args.seed is not None or secret:
            raise CommandError("--seed-from-repository chooses the seed: give it without --seed and --secret-seed-fd")
        try:
            args.seed = feedback_seed(repository)
        except ValueError as exc:
            raise CommandError(f"--seed-from-repository: {exc}") from exc
    only = [name.strip() for name in args.only.split(",")] if args.only else None
    unknown = sorted(set(only or []) - set(EXERCISES))
    if unknown:
        raise CommandError(f"--only: unknown exercise(s) {unknown}; choose from {', '.join(EXERCISES)}")
    progress = (lambda message: print(message, file=sys.stderr, flush=True)) if not args.quiet else None

    def report(result) -> None:  # runs before the sandbox is cleaned up
        print(to_console(result, color=sys.stdout.isatty()), flush=True)
        write_all(result, json=args.json, markdown=args.markdown, gradescope=args.gradescope, junit=args.junit)

    try:
        if args.confirm_from is not None:
            confirm_pending(_earlier_report(args.confirm_from), args.submission, rubric_path=args.rubric,
                            progress=progress, jail=args.jail, kernel_layers=args.layers == "on",
                            min_isolation=args.min_isolation, report=report)
            return 0
        grade(args.submission, seed=args.seed, only=only, gpu=args.gpu, rubric_path=args.rubric,
              fail_fast=args.fail_fast, progress=progress, jail=args.jail, kernel_layers=args.layers == "on",
              min_isolation=args.min_isolation, report=report,
              timeout_scale=args.timeout_scale, seed_secret=secret, confirm=args.confirm,
              measure_throughput=args.throughput == "on", seed_from_repository=(repository or "").strip())
    except (FileNotFoundError, ValueError, RubricError, ReportPathError) as exc:
        raise CommandError(str(exc)) from exc
    except (GraderFault, SandboxError) as exc:
        print(f"grader fault (not the submission's): {exc}", file=sys.stderr)
        return 2
    return 0



def _earlier_report(path: Path):
    """The GradeResult in the JSON report ``path`` (for --confirm-from); CommandError when it cannot be read."""
    import json

    from grader.engine.results import GradeResult

    try:
        return GradeResult.from_dict(json.loads(path.read_text(encoding="utf-8")))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        raise CommandError(f"--confirm-from {path}: not a grader's JSON report ({exc})") from None
