"""The autograders for Classroom 50 and Gradescope, run for real on this machine.

* Classroom 50: ``python -m grader classroom50`` writes the bundle; its
  ``autograder.py`` runs as Classroom 50's runner starts it (no arguments, in
  the student's checkout, with the runner's environment), and its
  ``result.json`` is checked as the runner checks it: the schema written from
  the ``classroom50/result/v1`` contract (grader/tests/schemas/), then the
  rules the runner applies in code (identity equal to its environment, whole
  points, ``score <= max-score``) and the convention that totals are sums.
* Gradescope: ``python -m grader gradescope`` writes the zip; its
  ``run_autograder`` runs in the simulated Gradescope container
  (grader/tests/container.py: root with Docker's default capabilities and
  seccomp namespace rules, so no namespaces of our own; the zip at
  /autograder/source, the submission at /autograder/submission, a writable
  /autograder/results, the network open), and results.json is checked
  against the schema written from Gradescope's specification, with the
  isolation the container allows ("contained") stated to the student.

``setup.sh`` is not run (it installs with apt on Gradescope's Ubuntu image);
the sandbox's Python is this virtual environment's. Each host gets the
reference solutions (full marks, all tests passed), the stubs (no points) and
a partly wrong or hostile submission. Slow: a grading each.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import subprocess
import sys
import zipfile
from pathlib import Path

import pytest

from grader.engine.results import MAX_INTEGRITY_FLAGS
from grader.paths import REPO
from grader.registry import CONTRACT_FILES
from grader.tests import container
from grader.tools.authoring import corpus
from grader.tools.delivery.host_bundles import classroom50_bundle, gradescope_zip
from grader.tools.delivery.student_template import release

SCHEMAS = Path(__file__).with_name("schemas")
CORPUS = Path(__file__).with_name("corpus")
FILES = CONTRACT_FILES
#: The flags the "hostile" submission forges: far over the caps on flags (a frame's, a check's, a report's), so the caps
#: are what the test sees; the hostile corpus's 100,000 (graded there) would add half a minute here.
HOSTILE_FLAGS = 1_000
C50_ENV = {"CLASSROOM": "ml-2026", "ASSIGNMENT": "dataloading", "OWNER": "ada", "USERNAME": "ada",
           "SUBMISSION_TAG": "submit/2026-11-30T10-00-00Z-abcdef1", "ASSIGNMENT_TYPE": "individual",
           "COMMIT_URL": "https://github.com/org/ml-2026-dataloading-ada/commit/abcdef1",
           "RELEASE_URL": "https://github.com/org/ml-2026-dataloading-ada/releases/tag/submit/x",
           "REVIEW_URL": "https://github.com/org/ml-2026-dataloading-ada/commit/abcdef1",
           "MODE": "individual", "PAGES_BASE_URL": "https://org.github.io/classroom50"}

pytestmark = pytest.mark.slow


def validate(instance, schema_name: str) -> None:
    import jsonschema

    schema = json.loads((SCHEMAS / schema_name).read_text())
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.Draft202012Validator(schema).validate(instance)


def submission_files(kind: str, dest: Path) -> Path:
    """The five files of a submission: "solutions"; "stubs"; "partly_wrong" (one wrong answer in collate, the
    reference elsewhere); "wrong_beside_stubs" (that wrong collate, the stubs elsewhere); "hostile" (the hostile
    corpus's many_flags collate, forging :data:`HOSTILE_FLAGS` distinct integrity flags rather than its 100,000,
    the stubs elsewhere). The last two grade one exercise fully and the others only to their preflight: the host's
    contract for partial and hostile results, in seconds rather than a whole grading."""
    dest.mkdir(parents=True, exist_ok=True)
    source = REPO / ("solutions" if kind in ("solutions", "partly_wrong") else "exercises")
    for name in FILES:
        shutil.copyfile(source / name, dest / name)
    if kind in ("partly_wrong", "wrong_beside_stubs"):
        (left_padding,) = [e for e in corpus.entries("wrong") if e.id == "wrong/collate/left_padding"]
        (dest / "collate.py").write_text(left_padding.source())
    if kind == "hostile":
        forger = (CORPUS / "hostile" / "many_flags" / "collate.py").read_text()
        assert "range(100_000)" in forger, "many_flags/collate.py changed: update submission_files"
        (dest / "collate.py").write_text(forger.replace("range(100_000)", f"range({HOSTILE_FLAGS})"))
    return dest


# --------------------------------------------------------------------------
# Classroom 50
# --------------------------------------------------------------------------


def runner_checks(result: dict, env: dict) -> None:
    """What Classroom 50's runner checks in code, beyond the schema (its validate_result)."""
    assert result["classroom"] == env["CLASSROOM"] and result["assignment"] == env["ASSIGNMENT"]
    assert result["owner"].lower() == env["OWNER"].lower()
    assert result["submission"].startswith("submit/")
    for key in ("score", "max-score"):
        assert type(result[key]) is int and result[key] >= 0, key
    assert result["score"] <= result["max-score"]
    for test in result["tests"]:
        assert type(test["score"]) is int and type(test["max-score"]) is int and type(test["passed"]) is bool
        assert 0 <= test["score"] <= test["max-score"]
    # The convention the runner's templates follow: totals are the sums.
    assert result["score"] == sum(t["score"] for t in result["tests"])
    assert result["max-score"] == sum(t["max-score"] for t in result["tests"])


def runner_status(result: dict) -> str:
    """The status the runner derives when the autograder writes none: success when every test passed."""
    return "success" if all(t["passed"] for t in result["tests"]) else "failure"


@pytest.fixture(scope="module")
def classroom50(tmp_path_factory):
    """The bundle, as Classroom 50's runner extracts it (its folder is CLASSROOM50_BUNDLE_DIR)."""
    bundle = tmp_path_factory.mktemp("c50") / "dataloading"
    classroom50_bundle(bundle)
    return bundle


@pytest.mark.timeout(600)
@pytest.mark.parametrize("kind", ["solutions", "stubs", "wrong_beside_stubs"])
def test_classroom50_autograder_on_a_student_checkout(classroom50, kind, tmp_path):
    bundle = classroom50
    checkout = tmp_path / "ml-2026-dataloading-ada"
    release(checkout)
    submission_files(kind, checkout / "exercises")
    output, summary = tmp_path / "github_output", tmp_path / "summary.md"
    env = {**os.environ, **C50_ENV, "CLASSROOM50_BUNDLE_DIR": str(bundle), "GITHUB_OUTPUT": str(output),
           "GITHUB_STEP_SUMMARY": str(summary), "PYTHONPATH": ""}
    done = subprocess.run([sys.executable, str(bundle / "autograder.py")], cwd=checkout, env=env,
                          capture_output=True, text=True, timeout=540)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    result = json.loads((checkout / "result.json").read_text())
    validate(result, "classroom50-result-v1.schema.json")
    runner_checks(result, C50_ENV)
    body = (checkout / "release-body.md").read_text()
    assert body.startswith("## Autograder:")
    names = [t["test-name"] for t in result["tests"]]
    if kind == "solutions":
        assert not any("pin_memory_on_gpu" in name for name in names), "a check that cannot run here is left out"
        assert result["score"] == result["max-score"] == 100 and runner_status(result) == "success"
        assert "❌" not in body.split("<sub>")[0] and "🟡" not in body.split("<sub>")[0]
    elif kind == "stubs":
        assert result["score"] == 0 and runner_status(result) == "failure"
    else:
        assert 0 < result["score"] < result["max-score"]
        collate = [t for t in result["tests"] if t["test-name"].startswith("collate/") and not t["passed"]]
        assert collate and all("message" in t for t in collate)


def test_classroom50_bundle_holds_the_grader_and_no_solution(classroom50):
    bundle = classroom50
    names = {str(p.relative_to(bundle)) for p in bundle.rglob("*") if p.is_file()}
    assert {"autograder.py", "requirements.txt", "README.md", "grader/cli.py"} <= names
    assert not any(n.startswith(("solutions/", "grader/tests/")) for n in names)
    readme = (bundle / "README.md").read_text()
    assert '"apt": [' in readme and '"bubblewrap"' in readme and '"python": "3.11"' in readme


# --------------------------------------------------------------------------
# Gradescope
# --------------------------------------------------------------------------


@pytest.fixture(scope="module")
def gradescope_source(tmp_path_factory):
    """The autograder zip, extracted as Gradescope does into /autograder/source."""
    folder = tmp_path_factory.mktemp("gradescope")
    names = gradescope_zip(folder / "autograder.zip")
    assert {"setup.sh", "run_autograder", "gradescope_run.py", "requirements.txt", "grader/cli.py"} <= set(names)
    source = folder / "source"
    with zipfile.ZipFile(folder / "autograder.zip") as archive:
        archive.extractall(source)
        for info in archive.infolist():  # zipfile does not restore modes
            os.chmod(source / info.filename, info.external_attr >> 16 & 0o777)
    return source


def run_in_autograder(source: Path, submission: Path, results: Path, python: str | None = None) -> subprocess.CompletedProcess:
    """``/autograder/run_autograder`` in the simulated Gradescope container (grader/tests/container.py: root with
    Docker's capabilities and seccomp namespace rules, the network open), this virtual environment at
    /autograder/venv where setup.sh would have made it."""
    if why := container.available():
        pytest.skip(f"simulating Gradescope's container: {why}")
    binds, env = [], dict(container.CONTAINER_ENV)
    if python is not None:
        env["GRADER_PYTHON"] = python
    elif sys.prefix != sys.base_prefix:
        binds.append((sys.prefix, "/autograder/venv"))
    else:
        env["GRADER_PYTHON"] = sys.executable
    return container.run_in_container(["/autograder/source/run_autograder"], source=source, submission=submission,
                                      results=results, extra_ro_binds=binds, env=env, timeout=540)


@pytest.mark.timeout(600)
@pytest.mark.parametrize("kind", ["solutions", "stubs", "partly_wrong", "hostile"])
def test_gradescope_run_autograder_in_a_simulated_container(gradescope_source, kind, tmp_path):
    submission = submission_files(kind, tmp_path / "submission")
    results = tmp_path / "results"
    results.mkdir()
    done = run_in_autograder(gradescope_source, submission, results)
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    data = json.loads((results / "results.json").read_text())
    validate(data, "gradescope-results.schema.json")
    assert data["output_format"] == "md", f"the fallback results.json was written: {data.get('output')}"
    assert data["stdout_visibility"] == "hidden"
    assert data["score"] == pytest.approx(sum(t["score"] for t in data["tests"]))
    assert data["extra_data"]["isolation_level"] == "contained", data["extra_data"]["isolation"]
    assert set(data["extra_data"]["isolation_layers"]) == {"uid", "landlock", "seccomp"}, "no namespaces in Docker"
    assert "Your code ran at isolation level **contained**" in data["output"]
    assert "isolation: contained" in done.stdout and "WARNING" not in done.stdout
    assert f"results.json sha256 {hashlib.sha256((results / 'results.json').read_bytes()).hexdigest()}" in done.stdout
    if kind == "solutions":
        assert data["score"] == 100 and all(t["status"] == "passed" for t in data["tests"])
        assert not any("pin_memory_on_gpu" in t["name"] for t in data["tests"]), "a check that cannot run here is left out"
        (entry,) = data["leaderboard"]  # the grader's throughput figure, measured in the container (grader/docs/throughput.md)
        assert entry["name"] == "Whole batches, % of the raw gather" and entry["value"] > 0 and entry["order"] == "desc"
    elif kind == "stubs":
        assert data["score"] == 0 and all(t["status"] == "failed" for t in data["tests"])
    elif kind == "partly_wrong":
        assert 0 < data["score"] < 100
        failed = [t for t in data["tests"] if t["status"] == "failed"]
        assert failed and all(t["name"].startswith("collate/") and t.get("output") for t in failed)
    else:
        collate = [t for t in data["tests"] if t["name"].startswith("collate/")]
        assert all(t["score"] == 0 for t in collate) and len(data["extra_data"]["integrity_flags"]) <= MAX_INTEGRITY_FLAGS


def test_gradescope_results_even_without_a_python(gradescope_source, tmp_path):
    """setup.sh failed, say: run_autograder still leaves a valid results.json with 0 and the reason."""
    results = tmp_path / "results"
    results.mkdir()
    done = run_in_autograder(gradescope_source, submission_files("solutions", tmp_path / "s"), results,
                             python="/nonexistent/python")
    assert done.returncode == 0
    data = json.loads((results / "results.json").read_text())
    validate(data, "gradescope-results.schema.json")
    assert data["score"] == 0 and "could not start" in data["output"]
