"""Grade one Gradescope submission; called by run_autograder (written by ``python -m grader gradescope``).

Finds the five exercise files in /autograder/submission (at its top, or in
an ``exercises/`` folder: students may upload the files or their whole
repository), grades them with the bundled grader, and writes
/autograder/results/results.json. Whatever fails, it writes a valid
results.json with score 0 and the reason, and exits 0.

Gradescope's run is the grade, so the grading runs at whatever isolation the
container allows (Docker refuses bubblewrap's namespaces: "contained" where
the kernel has Landlock and seccomp, else "weak"); the student's view states
the level, and this script's output (shown to instructors only) warns when it
is below "contained". The grader writes its reports into a private folder;
this script puts results.json in place only after the grading and every
process it started have ended, so nothing the submission ran can replace it.

When the zip carries the course key (``seed_key``, written by ``python -m
grader gradescope`` from ``$GRADER_SEED_KEY``), the grading uses the student's
secret seed of record, derived from the key and the submission's Gradescope
user id (``/autograder/submission_metadata.json``; the ids of a group, sorted
and joined with "+"). The key file is read and removed before any student code
runs; the seed goes to this script's output (instructors only), never to the
student's results.json, and reaches the grading process through a pipe
(``--secret-seed-fd``), never its command line: in this container a probe
shares the grader's /proc.
"""

import hashlib
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

AUTOGRADER = Path(os.environ.get("GRADESCOPE_ROOT", "/autograder"))
SOURCE = Path(__file__).resolve().parent
RESULTS = AUTOGRADER / "results" / "results.json"
METADATA = AUTOGRADER / "submission_metadata.json"
KEY_FILE = SOURCE / "seed_key"
GRADE_TIMEOUT_S = 540


sys.path.insert(0, str(SOURCE))
from grader.registry import CONTRACT_FILES as FILES  # noqa: E402  (the bundle's lab.toml)


def exercises_folder(submission: Path) -> Path:
    """Where the submitted files are: the submission itself, or the shallowest folder holding one of them."""
    if any((submission / name).is_file() for name in FILES):
        return submission
    found = sorted((p for name in FILES for p in submission.rglob(name) if p.is_file() and not p.is_symlink()),
                   key=lambda p: len(p.parts))
    return found[0].parent if found else submission


def seed_of_record() -> int | None:
    """The student's seed of record, or None (a fresh seed) without a key or an id."""
    try:
        key = KEY_FILE.read_bytes().strip()
    except OSError:
        return None
    finally:
        try:
            KEY_FILE.unlink()  # before the student's code runs
        except OSError:
            pass
    if not key:
        return None
    try:
        users = json.loads(METADATA.read_text(encoding="utf-8"))["users"]
        student = "+".join(sorted(str(user["id"]) for user in users))
    except (OSError, ValueError, KeyError, TypeError) as exc:
        print(f"WARNING: no student id in {METADATA} ({type(exc).__name__}): a fresh seed, not the seed of record")
        return None
    if not student:
        print(f"WARNING: {METADATA} lists no user: a fresh seed, not the seed of record")
        return None
    from grader.engine.seeds import student_seed

    seed = student_seed(key, student)
    print(f"seed of record: {seed} (Gradescope user {student}; secret: not in the student's results.json)", flush=True)
    return seed


def failure(reason: str) -> None:
    from grader.writers.gradescope import failure_payload

    replace_results((json.dumps(failure_payload(reason), indent=2) + "\n").encode())


def main() -> int:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    folder = exercises_folder(AUTOGRADER / "submission")
    seed = seed_of_record()
    from grader.engine.secret_seed import seed_pipe

    fd = None if seed is None else seed_pipe(seed)
    with tempfile.TemporaryDirectory(prefix="gradescope-") as tmp:
        command = [sys.executable, "-m", "grader", "grade", str(folder), "--quiet", "--json", f"{tmp}/grade.json",
                   "--gradescope", f"{tmp}/results.json", *([] if fd is None else ["--secret-seed-fd", str(fd)])]
        try:
            done = subprocess.run(command, cwd=SOURCE, timeout=GRADE_TIMEOUT_S, pass_fds=() if fd is None else (fd,))
        except subprocess.TimeoutExpired:
            failure(f"grading did not finish within {GRADE_TIMEOUT_S} s")
            return 0
        finally:
            if fd is not None:
                os.close(fd)
        if done.returncode != 0 or not os.path.isfile(f"{tmp}/results.json"):
            failure(f"the grader exited with status {done.returncode} (see the instructor's log)")
            return 0
        warn_about_isolation(json.loads(Path(f"{tmp}/grade.json").read_text(encoding="utf-8"))["isolation"])
        install(Path(f"{tmp}/results.json"))
    return 0


def warn_about_isolation(isolation: dict) -> None:
    """Say the level in this script's output (instructors only), with a warning below "contained"."""
    print(f"isolation: {isolation['level']} ({isolation['reason']})")
    if isolation["level"] == "weak":
        print("WARNING: the student's code ran at isolation level weak (no Landlock or seccomp layer held here): it "
              "could read this container's world-readable files and use its network. See the instructor "
              "repository's grader/docs/hosts.md, section Gradescope.")


def install(report: Path) -> None:
    """Put the grader's results.json in place and print its SHA-256 for the instructor's log."""
    data = report.read_bytes()
    replace_results(data)
    print(f"results.json sha256 {hashlib.sha256(data).hexdigest()}")


def replace_results(data: bytes) -> None:
    """Replace results.json atomically: a link or FIFO planted there is replaced, never written through."""
    partial = RESULTS.with_name(f".results.json.{os.getpid()}.tmp")
    partial.unlink(missing_ok=True)
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o644)
    with os.fdopen(fd, "wb") as fh:
        fh.write(data)
    os.replace(partial, RESULTS)


if __name__ == "__main__":
    sys.exit(main())
