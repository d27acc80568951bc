"""``python -m grader simulate gradescope``: one submission through a Gradescope autograder zip, as Gradescope runs it.

Builds the zip (``python -m grader gradescope``, with the course key of
``$GRADER_SEED_KEY`` when set) or takes one, unzips it as Gradescope does into
``OUT/source`` (modes restored), copies the submission into
``OUT/submission`` (regular files only; no link is followed), writes
``OUT/submission_metadata.json`` with the user id, and runs
``/autograder/source/run_autograder`` in the simulated container
(:mod:`grader.tools.delivery.gradescope_container`: root with Docker's capabilities and seccomp
namespace rules, no namespaces of its own, the ``/autograder`` layout), with
this environment's Python where ``setup.sh`` would have installed one. The
results land in ``OUT/results/results.json``; :func:`student_view` and
:func:`instructor_view` say what each would see.

What the simulation does not reproduce: ``setup.sh`` itself (the packages come
from this environment), Gradescope's own container image and kernel
(measured differences: grader/tools/delivery/gradescope_container.py's docstring).
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import zipfile
from dataclasses import dataclass
from pathlib import Path

from grader.engine import seeds
from grader.tools.delivery import gradescope_container as container
from grader.tools.delivery.host_bundles import gradescope_zip

#: How long run_autograder may take here (Gradescope's default limit is longer; the grader stops itself at 540 s).
TIMEOUT_S = 600
SKIPPED = {".git", "__pycache__", ".pytest_cache", ".venv", "venv"}


class SimulationError(ValueError):
    """The simulation cannot run (no root, no bwrap, a bad zip or submission); the message says why and what to do."""


@dataclass(frozen=True)
class Simulation:
    results: Path  # results.json, as Gradescope would read it
    autograder_output: str  # run_autograder's output: what the instructor sees in "Autograder Output"
    zip: Path


def _copy_submission(submission: Path, dest: Path) -> None:
    """The upload: the submission's regular files (links, sockets and caches left out), as a student's upload holds them."""
    for path in sorted(submission.rglob("*")):
        relative = path.relative_to(submission)
        if any(part in SKIPPED for part in relative.parts) or path.is_symlink() or not path.is_file():
            continue
        (dest / relative).parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(path, dest / relative)


def _unzip(archive: Path, dest: Path) -> None:
    try:
        with zipfile.ZipFile(archive) as zipped:
            zipped.extractall(dest)
            for info in zipped.infolist():  # zipfile does not restore modes
                os.chmod(dest / info.filename, info.external_attr >> 16 & 0o777 or 0o644)
    except (zipfile.BadZipFile, OSError) as exc:
        raise SimulationError(f"{archive}: not a Gradescope autograder zip ({exc}); build one with python -m grader "
                              "gradescope OUT.zip, or leave --zip out") from exc
    if not (dest / "run_autograder").is_file():
        raise SimulationError(f"{archive} has no run_autograder at its top: it is not a Gradescope autograder zip")


def simulate(submission: Path, out: Path, zip_path: Path | None = None, user_id: str = "1") -> Simulation:
    """Run ``submission`` through the autograder zip in the simulated container; everything lands under ``out``."""
    if why := container.available():
        raise SimulationError(f"cannot simulate Gradescope's container here: {why}")
    submission = Path(submission)
    if not submission.is_dir() or submission.is_symlink():
        raise SimulationError(f"{submission} is not a folder: give the folder the student uploads (their five files "
                              "or their repository)")
    out = Path(out).resolve()
    if out.exists() and any(out.iterdir()):
        if not (out / "submission_metadata.json").is_file():
            raise SimulationError(f"{out} is not empty and holds no earlier simulation: give another --out")
        shutil.rmtree(out)
    folders = {name: out / name for name in ("source", "submission", "results")}
    for folder in folders.values():
        folder.mkdir(parents=True)
    if zip_path is None:
        zip_path = out / "autograder.zip"
        gradescope_zip(zip_path, seed_key=seeds.key_from_environment())
    _unzip(Path(zip_path), folders["source"])
    _copy_submission(submission, folders["submission"])
    metadata = out / "submission_metadata.json"
    metadata.write_text(json.dumps({"users": [{"id": user_id, "name": "Simulated Student"}],
                                    "assignment": {"title": "simulated"}}, indent=2) + "\n")
    binds: list = [(str(metadata), f"{container.AUTOGRADER}/submission_metadata.json")]
    env = dict(container.CONTAINER_ENV)
    if sys.prefix != sys.base_prefix:
        binds.append((sys.prefix, "/autograder/venv"))
    else:
        env["GRADER_PYTHON"] = sys.executable
    done = container.run_in_container(["/autograder/source/run_autograder"], source=str(folders["source"]),
                                      submission=str(folders["submission"]), results=str(folders["results"]),
                                      extra_ro_binds=binds, env=env, timeout=TIMEOUT_S)
    output = done.stdout + done.stderr
    (out / "autograder_output.txt").write_text(output)
    results = folders["results"] / "results.json"
    if not results.is_file():
        raise SimulationError(f"run_autograder left no results.json (exit {done.returncode}): {output[-2000:]}")
    return Simulation(results=results, autograder_output=output, zip=Path(zip_path))


def student_view(results: dict) -> str:
    """What the student's page on Gradescope shows: the score, each visible test with its status and feedback, the
    top-level output (Markdown)."""
    lines = [f"score: {results.get('score', 0):g} / {sum(t.get('max_score', 0) for t in results.get('tests', [])):g}", ""]
    for test in results.get("tests", []):
        if test.get("visibility", "visible") in ("hidden",):
            continue
        lines.append(f"  [{test.get('status', '?'):6}] {test.get('score', 0):g}/{test.get('max_score', 0):g}  {test.get('name')}")
    if results.get("output"):
        lines += ["", "output shown above the tests:", *("  " + line for line in str(results["output"]).splitlines()[:40])]
    return "\n".join(lines)


#: The lines of run_autograder's output that are for the course staff (the rest is the console report).
STAFF_LINES = ("isolation:", "WARNING", "seed of record:", "results.json sha256")


def instructor_view(results: dict, autograder_output: str) -> str:
    """What only the course staff see: the autograder's own lines (isolation, warnings, the seed of record, the hash of
    results.json) and the results' extra data; the whole output is in autograder_output.txt."""
    extra = results.get("extra_data", {})
    staff = [line for line in autograder_output.splitlines() if line.startswith(STAFF_LINES)]
    lines = ["autograder output (instructors only; all of it in autograder_output.txt):", *("  " + line for line in staff),
             "", "extra_data:"]
    lines += [f"  {key}: {extra[key]}" for key in ("isolation_level", "isolation_layers", "grader_version", "grader_sha256",
                                                  "seed", "integrity_flags") if key in extra]
    return "\n".join(lines)
