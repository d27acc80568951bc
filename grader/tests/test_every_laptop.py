"""Every laptop a student brings: the public tests and the lab on the solutions, on Python 3.12 and 3.13, and under a
forkserver default start method (Python 3.14's on Linux).

The suite itself runs on 3.11 (.venv). The other interpreters are pyenv's
(``ls "$(pyenv root)"/versions``), each with a virtual environment of
requirements.txt that is built once, only when asked (``bash .ci/setup
--all-pythons``, which ``.ci/run`` uses; grader/tests/interpreters.py), and reused;
3.13's has the newest torch this machine can install (interpreters.TORCH_OVERRIDES)
in place of the pin, which students in a later term may get from pip.
An interpreter that is not installed, or whose environment is not built, skips
with the reason and the command that includes it.

Proves, on each interpreter: the in-process public tests and the fork worker
tests pass on the solutions, and the lab's four experiments show every claim
with fork workers (Python 3.12 and later warn about forking a process that
has threads; the lab and the tests must still pass).
Under ``LAB_START_METHOD=forkserver`` (tests/conftest.py), the in-process
public tests pass with forkserver as the process's default start method
(the worker tests and the lab name their start method, so the default
reaches none of them).

Does not prove, to stay within the suite's time: the spawn and forkserver
worker tests and the lab's forkserver default on 3.12 and 3.13 (each pool
costs a cold ``import torch``; the main suite runs them on 3.11 under every
start method, and the lab's test under forkserver). macOS and Windows are not run here: their default is
spawn, which the main suite runs.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys

import pytest

from grader.paths import REPO
from grader.tests import interpreters

#: The public tests run on every interpreter: all but the lab's (run directly below) and the spawn and forkserver pools.
PUBLIC = ["tests", "--impl", "solutions", "-q", "-p", "no:cacheprovider", "-m", "not slow", "-k", "not spawn and not forkserver"]


def clean_env(**extra) -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if k not in ("LAB_IMPL", "PYTEST_ADDOPTS", "PYTHONPATH", "VIRTUAL_ENV")}
    return {**env, "PYTHONDONTWRITEBYTECODE": "1", **extra}


def run(python, args, timeout, **env) -> subprocess.CompletedProcess:
    return subprocess.run([str(python), *args], cwd=REPO, env=clean_env(**env), capture_output=True, text=True, timeout=timeout)


def environment(minor: str):
    found = interpreters.find(minor)
    if found.python is None:
        pytest.skip(f"Python {minor} is not available here: {found.reason}")
    if not interpreters.is_built(found):
        pytest.skip(f"Python {minor}: its environment is not built here; to include it, run {interpreters.HOW_TO_BUILD}")
    return interpreters.venv_python(found)


@pytest.mark.slow
@pytest.mark.timeout(900)
@pytest.mark.parametrize("minor", interpreters.MINORS)
def test_public_tests_and_lab_pass_on_other_pythons(minor, tmp_path):
    python = environment(minor)
    version = run(python, ["-c", "import sys, torch; print(sys.version.split()[0], torch.__version__)"], 300)
    assert version.returncode == 0 and version.stdout.startswith(minor), version.stderr[-2000:]
    if minor in interpreters.TORCH_OVERRIDES:  # the newest torch pip installs here, not requirements.txt's pin
        assert version.stdout.split()[1].startswith(interpreters.TORCH_OVERRIDES[minor]), version.stdout
    tests = run(python, ["-m", "pytest", *PUBLIC], 600)
    assert tests.returncode == 0, f"public tests on Python {version.stdout.strip()}:\n{tests.stdout[-3000:]}{tests.stderr[-2000:]}"
    report = tmp_path / "lab.json"
    lab = run(python, ["-m", "solutions.lab", "--mp-context", "fork", "--repeats", "1", "--samples", "2000", "--json", str(report)], 600)
    assert lab.returncode == 0 and report.exists(), f"the lab on Python {version.stdout.strip()}:\n{lab.stdout[-3000:]}{lab.stderr[-2000:]}"
    experiments = json.loads(report.read_text())["experiments"]
    assert {letter: entry["status"] for letter, entry in experiments.items()} == dict.fromkeys("abcd", "ok")


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_public_tests_pass_under_a_forkserver_default(tmp_path):
    """The same public tests with forkserver as the default start method; a test of our own shows the default took."""
    default = tmp_path / "test_default_start_method.py"
    default.write_text("import multiprocessing\n\n\ndef test_default_is_forkserver():\n"
                       "    assert multiprocessing.get_start_method() == 'forkserver'\n")
    public = [*PUBLIC[:-3], "not slow and not workers"]  # every worker test names its start method: the default reaches none
    tests = run(sys.executable, ["-m", "pytest", *public, str(default)], 500, LAB_START_METHOD="forkserver")
    assert tests.returncode == 0, f"public tests with forkserver as the default start method:\n{tests.stdout[-3000:]}"
    assert "test_default_is_forkserver" not in tests.stdout, tests.stdout[-2000:]


def test_an_environment_not_built_skips_saying_how_to_include_it(monkeypatch):
    """.ci/setup builds the other Pythons' environments only when asked: the skip says how to ask."""
    from pathlib import Path

    monkeypatch.setattr(interpreters, "find", lambda minor: interpreters.Interpreter(minor, Path("/opt/py/bin/python")))
    monkeypatch.setattr(interpreters, "is_built", lambda interpreter: False)
    with pytest.raises(pytest.skip.Exception, match=r"bash \.ci/setup --all-pythons"):
        environment("3.12")


def test_the_handout_names_every_torch_the_laptops_run():
    """LAB.md says which torch versions the template is run on: requirements.txt's pin and every override."""
    import re

    from grader.paths import REPO

    pin = re.search(r"^torch==(\S+)", interpreters.REQUIREMENTS.read_text(encoding="utf-8"), flags=re.M).group(1)
    handout = " ".join((REPO / "LAB.md").read_text(encoding="utf-8").split())
    for version in (pin, *interpreters.TORCH_OVERRIDES.values()):
        assert f"torch {version}" in handout, f"LAB.md does not say that the template is run on torch {version}"
