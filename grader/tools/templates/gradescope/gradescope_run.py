"""Grade one Gradescope submission; called by run_autograder (written by ``python -m grader gradescope``).

Finds the five exercise files in /autograder/submission (at its top, or in
an ``exercises/`` folder: students may upload the files or their whole
repository), grades them with the bundled grader, and writes
/autograder/results/results.json. Whatever fails, it writes a valid
results.json with score 0 and the reason, and exits 0.
"""

import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path

AUTOGRADER = Path(os.environ.get("GRADESCOPE_ROOT", "/autograder"))
SOURCE = Path(__file__).resolve().parent
RESULTS = AUTOGRADER / "results" / "results.json"
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


def failure(reason: str) -> None:
    from grader.writers.gradescope import failure_payload

    RESULTS.write_text(json.dumps(failure_payload(reason), indent=2) + "\n", encoding="utf-8")


def main() -> int:
    RESULTS.parent.mkdir(parents=True, exist_ok=True)
    folder = exercises_folder(AUTOGRADER / "submission")
    with tempfile.TemporaryDirectory(prefix="gradescope-") as tmp:
        command = [sys.executable, "-m", "grader", "grade", str(folder), "--quiet", "--json", f"{tmp}/grade.json",
                   "--gradescope", str(RESULTS)]
        try:
            done = subprocess.run(command, cwd=SOURCE, timeout=GRADE_TIMEOUT_S)
        except subprocess.TimeoutExpired:
            failure(f"grading did not finish within {GRADE_TIMEOUT_S} s")
            return 0
    if done.returncode != 0 or not RESULTS.is_file():
        failure(f"the grader exited with status {done.returncode} (see the instructor's log)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
