"""``python -m grader bench``: the command line of :mod:`grader.tools.authoring.grading_bench`."""

from __future__ import annotations

from grader.commands import CommandError
from grader.tools.authoring.grading_bench import (
    MEASURED,
    jobs_list,
    measure,
)
from grader.tools.authoring.throughput_noise import DEFAULT_ANSWERS, measure_noise

HELP = "time the grading of solutions/ and of the stubs, phase by phase, and a class"


def add_arguments(parser) -> None:
    parser.add_argument("--repeats", type=int, default=3, help="runs per folder (default 3)")
    parser.add_argument("--seed", type=int, default=0, help="seed of the randomized inputs (default 0)")
    parser.add_argument("--class-size", type=int, default=30, help="students in the batch measurement (default 30; 0 skips it)")
    parser.add_argument("--batch-jobs", type=jobs_list, default=[2], metavar="N[,N]",
                       help="--jobs values to time the class with (default 2)")
    parser.add_argument("--memory", action="store_true", help="also measure the peak memory of a whole grading")
    parser.add_argument("--isolation", action="store_true",
                        help="also time the solutions in the jail with and without the kernel's layers, contained and weak")
    parser.add_argument("--record", action="store_true",
                        help="also write grader/docs/measured.toml, from which python -m grader docs derives the "
                             "documentation's measured figures (needs the class graded with --jobs 2)")
    parser.add_argument("--throughput", type=int, metavar="N",
                        help="instead: measure the grader's throughput figure N times each for the reference and "
                             "--answers, and print how much it moves (to pick a rubric threshold)")
    parser.add_argument("--answers", default=",".join(DEFAULT_ANSWERS), metavar="ID[,ID]",
                        help="with --throughput: right answers of the corpus measured beside the reference "
                             "(default: %(default)s)")


def run(args) -> int:
    if args.throughput is not None:
        if args.throughput < 1:
            raise CommandError("--throughput N: N must be at least 1")
        try:
            return measure_noise(args.throughput, [a.strip() for a in args.answers.split(",") if a.strip()], args.seed)
        except ValueError as exc:
            raise CommandError(f"--answers: {exc}") from exc
    if args.repeats < 1 or args.class_size < 0:
        raise CommandError("--repeats must be at least 1 and --class-size at least 0")
    return measure(args.repeats, args.seed, args.class_size, args.batch_jobs, args.memory, args.isolation,
                   record=MEASURED if args.record else None)
