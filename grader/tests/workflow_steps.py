"""Workflows as data, and their ``run:`` steps executed as GitHub's runner would (for the tests).

:func:`run_scripts` is the shell a workflow runs, with every script it calls
under ``.github/scripts/`` read in (so a test sees what the step really does);
:class:`StepRunner` and :func:`run_job` run the ``run:`` steps of a job with
their ``env:`` resolved from given values.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

import yaml

from grader.paths import REPO

EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")
SCRIPT_CALL = re.compile(r"(?:bash|python3?) (\.github/scripts/[\w.-]+)")


def load(path: Path) -> dict:
    """A workflow as data. (PyYAML reads the key ``on`` as True; it is put back as "on".)"""
    data = yaml.safe_load(path.read_text(encoding="utf-8"))
    if True in data:
        data["on"] = data.pop(True)
    return data


def steps(workflow: dict, job: str | None = None) -> list[dict]:
    jobs = workflow["jobs"]
    return jobs[job or next(iter(jobs))]["steps"]


def step(workflow: dict, step_id: str, job: str | None = None) -> dict:
    return next(s for s in steps(workflow, job) if s.get("id") == step_id)


def called_scripts(text: str) -> list[Path]:
    """The files under ``.github/scripts/`` that a step's ``run:`` text calls."""
    return [REPO / name for name in SCRIPT_CALL.findall(text)]


def run_scripts(workflow: dict, follow: bool = False) -> str:
    """Every ``run:`` text of the workflow; ``follow``: with the scripts they call read in."""
    texts = [s.get("run", "") for job in workflow["jobs"].values() for s in job["steps"]]
    if follow:
        texts += [path.read_text(encoding="utf-8") for text in list(texts) for path in called_scripts(text)]
    return "\n".join(texts)


class StepRunner:
    """Runs ``run:`` steps as the GitHub runner does: ``bash --noprofile --norc -eo pipefail``,
    the step's ``env:`` with its expressions resolved from :attr:`values`, a fresh
    ``$GITHUB_OUTPUT`` per step, whose outputs become ``steps.<id>.outputs.<name>``."""

    def __init__(self, base_env: dict[str, str], values: dict[str, str], cwd: Path):
        self.base_env, self.values, self.cwd = base_env, values, cwd
        self.outcomes: dict[str, int] = {}
        self.logs: dict[str, str] = {}

    def resolve(self, text: str) -> str:
        def one(match):
            if match.group(1) not in self.values:
                raise KeyError(f"the local run does not know ${{{{ {match.group(1)} }}}}")
            return self.values[match.group(1)]
        return EXPRESSION.sub(one, str(text))

    def run(self, s: dict, timeout: float | None = None) -> int:
        """Run one ``run:`` step; its limit is ``timeout``, else the step's ``timeout-minutes``, else 25 minutes (a
        class slice graded on a 2-core machine shared with other gradings has taken more than 10)."""
        timeout = timeout or 60 * float(s.get("timeout-minutes", 25))
        key = s.get("id") or s["name"]
        tmp = Path(self.base_env["RUNNER_TEMP"])
        output = tmp / f"output-{len(self.outcomes)}"
        output.write_text("")
        env = {**self.base_env, "GITHUB_OUTPUT": str(output)}
        env.update({k: self.resolve(v) for k, v in s.get("env", {}).items()})
        script = tmp / f"step-{len(self.outcomes)}.sh"
        script.write_text(s["run"])
        cwd = Path(self.resolve(s["working-directory"])) if "working-directory" in s else self.cwd
        done = subprocess.run(["bash", "--noprofile", "--norc", "-eo", "pipefail", str(script)], cwd=cwd,
                              env=env, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, timeout=timeout)
        self.outcomes[key] = done.returncode
        self.logs[key] = done.stdout
        if s.get("id"):
            for line in output.read_text().splitlines():
                name, _, value = line.partition("=")
                self.values[f"steps.{s['id']}.outputs.{name}"] = value
        return done.returncode


def run_job(runner: StepRunner, workflow: dict, job: str | None = None, skip_uses: bool = True) -> bool:
    """Run a job's ``run:`` steps in order as the runner would; return whether the job is green.

    A failed step fails the job unless it has ``continue-on-error``; later steps
    still run when their ``if:`` asks for it (here: every step whose ``if``
    starts with ``${{ !cancelled()``), otherwise they are skipped.
    """
    green = True
    for s in steps(workflow, job):
        if "uses" in s:
            continue  # actions are emulated by the caller
        if not green and not str(s.get("if", "")).startswith("${{ !cancelled()"):
            continue
        status = runner.run(s)
        if status != 0 and not s.get("continue-on-error"):
            green = False
    return green
