"""``python -m grader batch``: the command line of :mod:`grader.tools.class_grading.grade_class`."""

from __future__ import annotations

import argparse
import json
import os
import sys
from pathlib import Path
from urllib.parse import urlsplit

from grader.commands import CommandError
from grader.engine import seeds
from grader.isolation import LEVELS, meets
from grader.sandbox.expected import expected_isolation
from grader.tools.class_grading.canvas_import import RosterError, read_roster
from grader.tools.class_grading.class_reports import report_rows
from grader.tools.class_grading.grade_class import (
    GRADE_TIMEOUT_S,
    BatchError,
    parse_deadline,
    run_batch,
)
from grader.tools.intake.deadline_record import parse_time, read_record

HELP = ("grade every student folder under SUBMISSIONS, or every recorded commit (the grade of record: in the jail "
        "unless --min-isolation says otherwise)")


def add_arguments(parser) -> None:
    parser.add_argument("submissions", type=Path, nargs="?",
                        help="a folder with one folder per student (omit it with --from-server)")
    parser.add_argument("--out", type=Path, required=True, help="where results/, feedback/, gradebook.csv and summary.md go")
    parser.add_argument("--jobs", type=int, default=max(1, (os.cpu_count() or 2) // 2),
                        help="students graded at once (default: half the CPUs; each grading uses about 2 cores at peak)")
    parser.add_argument("--seed", type=int, default=0,
                        help="the class seed, used when $GRADER_SEED_KEY holds no course key (default 0); with a key each "
                             "student gets a secret seed of record derived from it")
    parser.add_argument("--files-out", type=Path, metavar="FILES",
                        help="copy the five files of every student read to FILES/<student>/ (for python -m grader review)")
    parser.add_argument("--roster", type=Path, metavar="CSV",
                        help="the class roster (student_id,name,sis_user_id,sis_login_id,section): also write canvas.csv, "
                             "Canvas's gradebook import (python -m grader merge --help)")
    parser.add_argument("--deadline", type=parse_deadline,
                        help="grade each student at the commit the server held at this ISO 8601 time (needs --server-record)")
    parser.add_argument("--server-record", type=Path, metavar="FILE",
                        help="what GitHub held at the deadline, from python -m grader record-submissions")
    parser.add_argument("--from-server", metavar="URL",
                        help="fetch each recorded commit from URL/<owner>/<name>.git (e.g. https://github.com) instead of "
                             "reading local checkouts; the token in $CLASSROOM_TOKEN (see --token-env) goes to that server only")
    parser.add_argument("--token-env", default="CLASSROOM_TOKEN", metavar="NAME",
                        help="the environment variable holding the token for --from-server (default CLASSROOM_TOKEN)")
    parser.add_argument("--slice", type=slice_value, metavar="I/K",
                        help="grade only slice I (0 to K-1) of K: the students in sorted order, every K-th from the I-th, "
                             "as the class workflow slices its repositories (python -m grader dry-run uses it)")
    parser.add_argument("--force", action="store_true", help="grade again students whose files and seed did not change")
    parser.add_argument("--timeout", type=float, default=GRADE_TIMEOUT_S, help="seconds allowed per student (default 900)")
    parser.add_argument("--gpu", choices=("auto", "on", "off"), default="off", help="pin_memory checks on CUDA (default off)")
    parser.add_argument("--min-isolation", choices=LEVELS, default="jail",
                        help="refuse to grade below this isolation level (default jail: the grade of record; contained: "
                             "Landlock and seccomp without namespaces; weak: any, the reports say the level)")


def run(args) -> int:
    if args.jobs < 1:
        raise CommandError("--jobs must be at least 1")
    try:
        server = _server(args.from_server, args.submissions, args.server_record)
    except BatchError as exc:
        raise CommandError(str(exc)) from exc
    expected = expected_isolation()
    if not meets(expected.level, args.min_isolation):
        raise CommandError(f"gradings here would get isolation {expected.level} ({expected.reason}), "
                           f"below --min-isolation {args.min_isolation}. Install bubblewrap and run as root (grader/docs/grading.md, Isolation), "
                           "or lower --min-isolation for a grading that is not the grade of record.")
    token = os.environ.pop(args.token_env, None) if server else None  # the graders never see it
    seed_key = seeds.key_from_environment()
    os.environ.pop(seeds.KEY_VARIABLE, None)
    if seed_key is None:
        print(f"python -m grader batch: warning: no course key in ${seeds.KEY_VARIABLE}: every student gets the class "
              f"seed {args.seed}, which anyone can use to compute the inputs in advance (grader/docs/hosts.md, Batch grading)",
              file=sys.stderr)
    try:
        if args.roster is not None:
            read_roster(args.roster)  # a bad roster stops before anything is graded
        record = _record(args.deadline, args.server_record)
        rows = run_batch(args.submissions, args.out, jobs=args.jobs, seed=args.seed, record=record,
                         force=args.force, timeout=args.timeout, extra=["--gpu", args.gpu, "--min-isolation", args.min_isolation],
                         server=server, token=token or None, seed_key=seed_key, files_out=args.files_out,
                         roster=args.roster, slice_of=args.slice)
    except (BatchError, RosterError) as exc:
        raise CommandError(str(exc)) from exc
    return report_rows(rows, args.out)


def slice_value(text: str) -> tuple[int, int]:
    """``I/K`` -> (I, K), with 0 <= I < K; argparse's error otherwise."""
    index, _, count = text.partition("/")
    if not (index.isdigit() and count.isdigit() and 0 <= int(index) < int(count)):
        raise argparse.ArgumentTypeError(f"{text!r}: give I/K with 0 <= I < K, e.g. 0/3")
    return int(index), int(count)


def _server(url: str | None, submissions: Path | None, record: Path | None) -> str | None:
    """The --from-server URL, checked against the other arguments; BatchError when they do not go together."""
    if url is None:
        if submissions is None:
            raise BatchError("give a SUBMISSIONS folder, or --from-server URL with --deadline and --server-record")
        return None
    if submissions is not None:
        raise BatchError("give either a SUBMISSIONS folder or --from-server, not both")
    if record is None:
        raise BatchError("--from-server fetches the commits of a server record: give --deadline and --server-record")
    parts = urlsplit(url)
    if parts.scheme not in ("https", "http", "file") or parts.username or parts.password or parts.query:
        raise BatchError(f"--from-server {url!r}: give the server's URL, like https://github.com (no credentials in it)")
    return url.rstrip("/")


def _record(deadline: str | None, path: Path | None) -> dict | None:
    """The server record for ``--deadline``, or None without a deadline; BatchError when they do not go together."""
    if deadline is None and path is None:
        return None
    if deadline is None or path is None:
        raise BatchError("--deadline and --server-record go together: a commit's own date can be forged, so the "
                         "deadline is judged by the times GitHub recorded (python -m grader record-submissions)")
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        record_deadline = data.get("deadline", "") if isinstance(data, dict) else ""
        same = parse_time(record_deadline) == parse_time(deadline)
        record = read_record(path)
    except (OSError, ValueError, AttributeError) as exc:
        raise BatchError(f"--server-record {path}: {exc}") from None
    if not same:
        raise BatchError(f"--server-record {path} was made for the deadline {record_deadline}, not {deadline}")
    return record
