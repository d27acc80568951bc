"""The other Pythons a student may bring: pyenv's 3.12 and 3.13, each with a virtual environment of requirements.txt.

Each environment is built once and kept outside the clone, under
``$LAB_VENV_CACHE`` (default ``~/.cache/lab-venvs``), named by the
interpreter's version and a hash of requirements.txt's requirement lines
(comments and blank lines aside), so a change to the requirements builds a
new one and a rerun, or a reworded comment, reuses it. For 3.12 and 3.13,
``pip install torch==2.13.0`` resolves to a CUDA build (about 4.7 GB, minutes
to install). Python 3.13's environment takes the newest torch this machine can
install instead of requirements.txt's pin (:data:`TORCH_OVERRIDES`), so the
template is also tested on what a student's pip gives them in their term.
They are built only when asked, by ``bash .ci/setup --all-pythons``
(what ``.ci/run`` does) or ``python -m grader.tests.interpreters``, outside the
suite's time; the suite (test_every_laptop.py) never builds one and skips,
saying how to build it, where one is absent.

    python -m grader.tests.interpreters          # build what is missing, say where each is
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

from grader.paths import REPO

#: The minor versions beside the suite's own (3.11, .venv) that the template claims to run on.
MINORS = ("3.12", "3.13")
REQUIREMENTS = REPO / "requirements.txt"
#: minor -> the torch its environment gets in place of requirements.txt's pin: the newest pip allows here (a CUDA
#: build whose CUDA libraries come from the registry, several GB), given to an environment that is built anyway.
TORCH_OVERRIDES = {"3.13": "2.14.1"}
BUILD_TIMEOUT_S = 1800


@dataclass(frozen=True)
class Interpreter:
    minor: str
    python: Path | None  # None: not installed here
    reason: str = ""  # why it is missing


def cache_root() -> Path:
    return Path(os.environ.get("LAB_VENV_CACHE") or Path.home() / ".cache" / "lab-venvs")


def pyenv_root() -> Path | None:
    """``pyenv root``, or None where pyenv is not installed."""
    pyenv = shutil.which("pyenv")
    if pyenv is None:
        return None
    found = subprocess.run([pyenv, "root"], capture_output=True, text=True, timeout=30)
    return Path(found.stdout.strip()) if found.returncode == 0 and found.stdout.strip() else None


def find(minor: str) -> Interpreter:
    """The newest pyenv interpreter of ``minor`` (e.g. "3.12"), or why there is none."""
    root = pyenv_root()
    if root is None:
        return Interpreter(minor, None, "pyenv is not installed")
    versions = root / "versions"
    names = sorted((p.name for p in versions.glob(f"{minor}.*") if p.name[len(minor) + 1:].isdigit()),
                   key=lambda name: int(name.rsplit(".", 1)[1])) if versions.is_dir() else []
    if not names:
        return Interpreter(minor, None, f"pyenv has no Python {minor} (ls {versions}: none matches {minor}.N)")
    return Interpreter(minor, versions / names[-1] / "bin" / "python")


def requirement_lines(minor: str) -> list[str]:
    """requirements.txt's requirement lines (comments and blank lines aside), torch as :data:`TORCH_OVERRIDES` says."""
    lines = [line.strip() for line in REQUIREMENTS.read_text(encoding="utf-8").splitlines()]
    lines = [line for line in lines if line and not line.startswith("#")]
    if minor in TORCH_OVERRIDES:
        lines = [f"torch=={TORCH_OVERRIDES[minor]}" if line.split("=")[0].split(">")[0].strip() == "torch" else line
                 for line in lines]
    return lines


def venv_dir(interpreter: Interpreter) -> Path:
    """Where the environment of this interpreter and its requirements lives."""
    wanted = "\n".join(requirement_lines(interpreter.minor)) + "\n"
    digest = hashlib.sha256(wanted.encode()).hexdigest()[:12]
    return cache_root() / f"py{interpreter.python.parent.parent.name}-{digest}"


def venv_python(interpreter: Interpreter) -> Path:
    return venv_dir(interpreter) / "bin" / "python"


def is_built(interpreter: Interpreter) -> bool:
    """Whether this interpreter's environment is complete (built by :func:`build`)."""
    return (venv_dir(interpreter) / ".complete").exists() and venv_python(interpreter).exists()


#: How to build the environments that are absent: what the skipping test says.
HOW_TO_BUILD = "bash .ci/setup --all-pythons (or .venv/bin/python -m grader.tests.interpreters)"


def build(interpreter: Interpreter, log=sys.stderr) -> Path:
    """The environment's python, building the environment first if it is missing (or was left half-built)."""
    folder, python = venv_dir(interpreter), venv_python(interpreter)
    if is_built(interpreter):
        return python
    shutil.rmtree(folder, ignore_errors=True)
    folder.parent.mkdir(parents=True, exist_ok=True)
    print(f"building {folder} (pip install -r requirements.txt: minutes for a CUDA build of torch)", file=log, flush=True)
    subprocess.run([str(interpreter.python), "-m", "venv", str(folder)], check=True, timeout=300)
    wanted = folder / "requirements.txt"
    wanted.write_text("\n".join(requirement_lines(interpreter.minor)) + "\n", encoding="utf-8")
    subprocess.run([str(python), "-m", "pip", "install", "--quiet", "--disable-pip-version-check", "-r", str(wanted)],
                   check=True, timeout=BUILD_TIMEOUT_S)
    (folder / ".complete").write_text("built from requirements.txt" + (
        f", torch {TORCH_OVERRIDES[interpreter.minor]}\n" if interpreter.minor in TORCH_OVERRIDES else "\n"))
    return python


def main() -> int:
    failed = 0
    for minor in MINORS:
        interpreter = find(minor)
        if interpreter.python is None:
            print(f"Python {minor}: skipped ({interpreter.reason})")
            continue
        try:
            print(f"Python {minor}: {build(interpreter)}")
        except (subprocess.SubprocessError, OSError) as exc:
            print(f"Python {minor}: could not build its environment ({exc})", file=sys.stderr)
            failed = 1
    return failed


if __name__ == "__main__":
    sys.exit(main())
