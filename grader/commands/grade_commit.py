"""``python -m grader grade-commit URL [--ref REF]``: grade one commit of a repository, read as blobs.

What the GPU workflow runs: the commit (``--ref``: a branch, a tag or a full
commit id; default the repository's HEAD) is fetched alone through
:func:`grader.tools.intake.commit_reader.read_commit`, never cloned or checked out, its
accepted contract files are graded by ``python -m grader grade`` in its own
process (the token removed from its environment), and the reports say
which commit was graded and, for each file that could not be taken, which
file and why. The token (``$CLASSROOM_TOKEN``, see ``--token-env``) goes to
URL's server only. With ``--student ID`` and a course key in
``$GRADER_SEED_KEY`` (and no ``--seed``), the grading uses the student's
secret seed of record (:mod:`grader.engine.seeds`), kept out of the Markdown.
Exit status: 0 when graded (whatever the score), 2 when the commit cannot be
read or the grader fails.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

from grader.commands import CommandError
from grader.engine import seeds
from grader.engine.results import GradeResult
from grader.engine.secret_seed import seed_pipe
from grader.isolation import LEVELS
from grader.paths import REPO
from grader.report_files import write_text
from grader.tools.class_grading.grade_class import SECRET_VARIABLES
from grader.tools.intake.commit_reader import IntakeError, annotate, read_commit
from grader.writers import to_json, to_markdown

HELP = "fetch one commit of a repository (never checked out) and grade its five files"


def add_arguments(parser) -> None:
    parser.add_argument("url", help="the repository, e.g. https://github.com/org/lab-ada.git")
    parser.add_argument("--ref", default="HEAD", help="branch, tag or full commit id (default: the repository's HEAD)")
    parser.add_argument("--json", type=Path, required=True, metavar="FILE", help="write the result as JSON")
    parser.add_argument("--markdown", type=Path, required=True, metavar="FILE", help="write the Markdown report")
    parser.add_argument("--seed", type=int, help="seed of the randomized inputs (default: a fresh one, in the report)")
    parser.add_argument("--student", metavar="ID",
                        help="grade with this student's secret seed of record, derived from $GRADER_SEED_KEY (the "
                             "repository's name, as the class workflow uses it); --seed wins")
    parser.add_argument("--gpu", choices=("auto", "on", "off"), default="auto", help="pin_memory checks on CUDA")
    parser.add_argument("--min-isolation", choices=LEVELS, default="jail", help="as for grade (default jail)")
    parser.add_argument("--token-env", default="CLASSROOM_TOKEN", metavar="NAME",
                        help="the environment variable holding the token (default CLASSROOM_TOKEN)")


def run(args) -> int:
    with tempfile.TemporaryDirectory(prefix="grader-commit-") as tmp:
        submission = Path(tmp) / "submission"
        try:
            intake = read_commit(args.url, args.ref, submission, token=os.environ.get(args.token_env) or None)
        except IntakeError as exc:
            raise CommandError(str(exc)) from exc
        print(f"grading {args.url} at {intake.commit}", file=sys.stderr)
        for sentence in intake.problems.values():
            print(f"  {sentence}", file=sys.stderr)
        cmd = [sys.executable, "-m", "grader", "grade", str(submission), "--quiet", "--json", str(args.json),
               "--markdown", str(args.markdown), "--gpu", args.gpu, "--min-isolation", args.min_isolation]
        fd = None
        if args.seed is not None:
            cmd += ["--seed", str(args.seed)]
        elif args.student:
            key = seeds.key_from_environment()
            if key is None:
                print(f"python -m grader grade-commit: warning: no course key in ${seeds.KEY_VARIABLE}: a fresh seed, "
                      "not the student's seed of record", file=sys.stderr)
            else:
                fd = seed_pipe(seeds.student_seed(key, args.student))  # never on the command line
                cmd += ["--secret-seed-fd", str(fd)]
        env = {k: v for k, v in os.environ.items() if k not in SECRET_VARIABLES and k != args.token_env}
        try:
            done = subprocess.run(cmd, cwd=REPO, env=env, pass_fds=() if fd is None else (fd,))
        finally:
            if fd is not None:
                os.close(fd)
        if done.returncode != 0 or not args.json.is_file():
            print(f"python -m grader grade-commit: the grader failed (exit code {done.returncode})", file=sys.stderr)
            return 2
    result = GradeResult.from_dict(json.loads(args.json.read_text(encoding="utf-8")))
    result.provenance = {"commit": intake.commit, "server_time": "", "source": f"{args.url} at {args.ref}"}
    annotate(result, intake)
    write_text(args.json, to_json(result))
    write_text(args.markdown, to_markdown(result))
    return 0
