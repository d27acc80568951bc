"""Classroom 50 autograder of the data-loading lab (written by ``python -m grader classroom50``).

The Classroom 50 runner starts this file with no arguments, in the student's
checkout, with this bundle's folder in ``CLASSROOM50_BUNDLE_DIR``. It:

1. installs what the grader needs into the running interpreter (CPU-only
   torch from PyTorch's CPU index, then ``requirements.txt``), unless the
   pinned versions are there already;
2. grades ``exercises/`` with the bundled grader (``python -m grader
   grade``, in its bubblewrap jail where the runner allows one, as root
   through ``sudo`` where that works without a password);
3. writes ``result.json`` (``classroom50/result/v1``: one test per check
   that ran, whole points) and ``release-body.md`` (the grader's Markdown
   report) in the checkout.

It exits 0 whatever the score; when something fails before a score exists,
``result.json`` says so with 0 points and the reason. This bundle is served
publicly: it holds the grader, never the solutions.
"""

import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

BUNDLE = Path(os.environ.get("CLASSROOM50_BUNDLE_DIR") or Path(__file__).resolve().parent)
CHECKOUT = Path.cwd()
TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
INSTALL_TIMEOUT_S = 600
GRADE_TIMEOUT_S = 600


def log(message):
    print(f"[autograder] {message}", flush=True)


def torch_pin():
    for line in (BUNDLE / "requirements.txt").read_text().splitlines():
        if line.strip().startswith("torch"):
            return line.split("#")[0].strip()
    return "torch"


def installed(pin):
    version = pin.partition("==")[2]
    done = subprocess.run([sys.executable, "-c", "import torch, numpy, pytest; print(torch.__version__)"],
                          capture_output=True, text=True)
    return done.returncode == 0 and (not version or done.stdout.strip().split("+")[0] == version)


def install():
    pin = torch_pin()
    if installed(pin):
        log(f"{pin} is already installed")
        return
    started = time.monotonic()
    pip = [sys.executable, "-m", "pip", "install", "--disable-pip-version-check", "--quiet"]
    subprocess.run([*pip, "--index-url", TORCH_INDEX, pin], check=True, timeout=INSTALL_TIMEOUT_S)
    subprocess.run([*pip, "-r", str(BUNDLE / "requirements.txt")], check=True, timeout=INSTALL_TIMEOUT_S)
    log(f"installed the grader's requirements in {time.monotonic() - started:.0f} s")


def as_root():
    """sudo where it works without a password: bwrap then needs no user namespace."""
    if os.geteuid() == 0 or shutil.which("sudo") is None:
        return []
    ok = subprocess.run(["sudo", "-n", "true"], capture_output=True).returncode == 0
    return ["sudo", "-n", "-E"] if ok else []


def grade(report_dir):
    """Run the bundled grader on exercises/; return its JSON report as data."""
    report = report_dir / "grade.json"
    command = [*as_root(), sys.executable, "-m", "grader", "grade", str(CHECKOUT / "exercises"), "--quiet",
               "--json", str(report), "--markdown", str(report_dir / "grade.md")]
    env = dict(os.environ, PYTHONPATH=str(BUNDLE))
    done = subprocess.run(command, cwd=BUNDLE, env=env, timeout=GRADE_TIMEOUT_S)
    if done.returncode != 0 or not report.is_file():
        raise RuntimeError(f"the grader exited with status {done.returncode} and wrote no report")
    return json.loads(report.read_text(encoding="utf-8"))


def write(name, text):
    target = CHECKOUT / name
    if target.is_symlink() or target.exists() and not target.is_file():
        target.unlink()
    target.write_text(text, encoding="utf-8")


def main():
    sys.path.insert(0, str(BUNDLE))
    try:
        install()
        with tempfile.TemporaryDirectory(prefix="classroom50-grade-") as tmp:
            data = grade(Path(tmp))
            markdown = (Path(tmp) / "grade.md").read_text(encoding="utf-8")
        from grader.engine.results import GradeResult
        from grader.writers.classroom50 import classroom50_result

        result = classroom50_result(GradeResult.from_dict(data), dict(os.environ))
        write("release-body.md", markdown)
        log(f"score {result['score']} / {result['max-score']}")
    except Exception as exc:  # noqa: BLE001 - the student must still get a result
        log(f"could not grade: {exc}")
        from grader.writers.classroom50 import classroom50_error

        result = classroom50_error(f"the autograder could not grade this submission: {exc}", dict(os.environ))
        write("release-body.md", f"### Autograder: could not grade\n\n{exc}\n\nThis is not a verdict on your code; "
                                 "tell your instructor.\n")
    write("result.json", json.dumps(result, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
