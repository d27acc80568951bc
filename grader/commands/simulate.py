"""``python -m grader simulate gradescope SUBMISSION``: the command line of :mod:`grader.tools.delivery.simulate_gradescope`."""

from __future__ import annotations

import json
from pathlib import Path

from grader.commands import CommandError
from grader.tools.delivery.published_grader import PublishError
from grader.tools.delivery.simulate_gradescope import SimulationError, instructor_view, simulate, student_view

HELP = "run a submission through a host's autograder as the host does (gradescope: the zip in a simulated container)"
HOSTS = ("gradescope",)


def add_arguments(parser) -> None:
    parser.add_argument("host", choices=HOSTS, help="the host to simulate")
    parser.add_argument("submission", type=Path, help="the folder a student uploads (their five files or their repository)")
    parser.add_argument("--zip", type=Path, help="the autograder zip to run (default: build one now, with $GRADER_SEED_KEY)")
    parser.add_argument("--user-id", default="1", help="the Gradescope user id in submission_metadata.json "
                        "(the seed of record derives from it when the zip carries the course key; default 1)")
    parser.add_argument("--out", type=Path, default=Path("build/simulate-gradescope"),
                        help="where the simulated /autograder goes (replaced; default build/simulate-gradescope)")


def run(args) -> int:
    try:
        simulation = simulate(args.submission, args.out, zip_path=args.zip, user_id=str(args.user_id))
        results = json.loads(simulation.results.read_text(encoding="utf-8"))
    except (SimulationError, PublishError, ValueError) as exc:
        raise CommandError(str(exc)) from exc
    print(f"== what the student sees ==\n{student_view(results)}\n")
    print(f"== what the instructor sees ==\n{instructor_view(results, simulation.autograder_output)}\n")
    print(f"results.json: {simulation.results}  (zip: {simulation.zip}; the whole /autograder: {args.out})")
    return 0
