"""Every command README.md and grader/docs/ show runs as written, or this file says who runs it or why it cannot.

A command is an inline code span, or a line of a ``bash``/``sh`` fenced block, that starts with a
program (``python``, ``.venv/bin/python``, ``bash``, ``pytest``, ``pip``, ``git``, ``gh``, ``sudo``,
``.ci/...``), optionally after ``NAME=value`` assignments. recipes.md's ``bash run`` blocks are
followed as written by recipe_walk (test_recipes.py, test_registry.py) and are not listed here.

Each command falls under exactly one table:

- :data:`RUN_HERE` and the lines of hosts.md's release block (:data:`RELEASE_BLOCK`, run as one script):
  run below in one clean copy of this repository (recipe_walk.copy_repository), as
  written, with the placeholders of :data:`PLACEHOLDERS` filled in, in the order of the table (a
  later command may use what an earlier one built); each must exit 0;
- :data:`RUN_ELSEWHERE`: run by another test (named; it must exist) or by CI itself, because running
  it again here would cost minutes the suite already spends;
- :data:`HOST_ONLY`: cannot run on this machine (GitHub, a host's service, another package manager),
  with the reason.

A command added to a document fails :func:`test_every_documented_command_is_accounted_for` until it is
put in one of them, and a table entry no document shows any more fails it too.
"""

from __future__ import annotations

import ast
import os
import re
import subprocess
import time
from pathlib import Path

import pytest

from grader.paths import REPO
from grader.tests.recipe_walk import copy_repository

DOCUMENTS = ("README.md", *sorted(str(p.relative_to(REPO)) for p in (REPO / "grader" / "docs").glob("*.md")))
_PROGRAM = re.compile(r"^(?:[A-Z][A-Z0-9_]*=\S*\s+)*(?:\.venv/bin/python|python3?|bash|pytest|pip|git|gh|sudo|\.ci/\w+)(?:\s|$)")
_FENCE = re.compile(r"^```(\w*)([^\n]*)\n(.*?)^```", re.S | re.M)
_SPAN = re.compile(r"`([^`\n]+)`")

#: What a placeholder of a documented command stands for here ({tmp}: a scratch folder outside the copy).
PLACEHOLDERS = {
    "GRADER_SEED_KEY=...": "GRADER_SEED_KEY=a-course-key-for-the-documented-commands-test",
    "/tmp/c50-try": "{tmp}/c50-try",
    "CHECK": "collate.returns_exactly_the_three_keys",
    "OUT": "{tmp}/out",
}

#: Run in one clean copy, in this order: the command as the document shows it.
RUN_HERE = (
    '.venv/bin/python -c "import secrets; print(secrets.token_urlsafe(32))"',
    ".venv/bin/python -m grader --help",
    "python -m grader generate",
    "python -m grader docs",
    ".venv/bin/python -m grader check",
    "python -m grader check",
    "python -m grader explain CHECK",
    "python -m grader release OUT",
    ".venv/bin/python -m grader release ../lab-template",
    'git init -b main && git add -A && git commit -m "Release the lab"',
    ".venv/bin/python -m grader publish ../lab-grader",
    ".venv/bin/python -m grader classroom50 ../lab-c50",
    ".venv/bin/python -m grader release /tmp/c50-try && (cd /tmp/c50-try && CLASSROOM50_BUNDLE_DIR=$OLDPWD/../lab-c50 "
    "$OLDPWD/.venv/bin/python $OLDPWD/../lab-c50/autograder.py)",
    "GRADER_SEED_KEY=... .venv/bin/python -m grader gradescope build/autograder.zip",
    "python -m grader gradescope build/autograder.zip",
)

#: The hosts.md block that releases the template (run as one script, its host-only line left out).
RELEASE_BLOCK = "grader/docs/hosts.md"

#: Run by another test (file.py::test_name, which must exist) or by CI itself, with what it costs here.
RUN_ELSEWHERE = {
    "bash .ci/run": ("CI", "what CI runs on a clean clone: the whole suite, this test included"),
    ".ci/run": ("CI", "the same command, named by its path"),
    "bash .ci/setup": ("CI", ".ci/run's first step"),
    ".ci/setup": ("CI", ".ci/run's first step"),
    "bash .ci/setup --all-pythons": ("CI", ".ci/run's first step, as written"),
    "bash .ci/setup && .venv/bin/python -m solutions.lab": (
        "tests/test_lab.py::test_experiment_shows_what_the_handout_says", "CI sets up; the lab's four experiments "
        "run on the reference as the public tests' lab tests (minutes)"),
    "git clone <this repository> && cd <it> && bash .ci/setup && .venv/bin/python -m grader check": (
        "CI", "CI clones and sets up; check runs above in a clean copy"),
    "python -m venv .venv": ("CI", "what .ci/setup runs"),
    "pip install -r requirements.txt": ("CI", "what .ci/setup runs"),
    "pip install -r requirements-instructor.txt": ("CI", "what .ci/setup runs"),
    ".venv/bin/python -m pytest tests grader/tests --impl solutions -m \"not slow and not workers\" -n 2": (
        "test_recipes.py::test_change_a_promise_then_add_a_check_for_a_new_promise", "the quick subset, run on the "
        "recipes' copy (a minute)"),
    "pytest -m collate": ("test_every_laptop.py::test_public_tests_and_lab_pass_on_other_pythons",
                          "the public tests, every marker, on each laptop Python"),
    "pytest -m toy": ("test_registry.py::test_a_sixth_exercise_follows_the_recipe_to_a_clean_check",
                      "the sixth exercise's recipe"),
    "python -m exercises.lab": ("tests/test_lab.py::test_experiment_shows_what_the_handout_says", "minutes"),
    "python -m solutions.lab": ("tests/test_lab.py::test_experiment_shows_what_the_handout_says", "minutes"),
    "python -m solutions.bench": ("test_bench_figures.py::test_every_level_is_measured_for_each_class_in_the_same_rounds",
                                  "a benchmark (tens of seconds)"),
    ".venv/bin/python -m grader verify EXERCISE": (
        "test_recipes.py::test_change_a_promise_then_add_a_check_for_a_new_promise", "verify collate, as the "
        "recipes write it (minutes)"),
    ".venv/bin/python -m grader verify <exercise>": (
        "test_recipes.py::test_change_a_promise_then_add_a_check_for_a_new_promise", "verify collate, as the "
        "recipes write it (minutes)"),
    ".venv/bin/python -m grader contract": ("test_recipes.py::test_change_a_promise_then_add_a_check_for_a_new_promise",
                                            "each recipe's last block"),
    ".venv/bin/python -m grader docs": ("test_recipes.py::test_change_a_promise_then_add_a_check_for_a_new_promise",
                                        "each recipe's last block"),
    ".venv/bin/python -m grader generate": ("test_recipes.py::test_change_a_promise_then_add_a_check_for_a_new_promise",
                                            "the promise recipes' step"),
    ".venv/bin/python -m pytest grader/tests/test_writers.py grader/tests/test_house.py --impl solutions -q": (
        "CI", "two files of the suite"),
    "python -m grader handout": ("test_handout.py::test_the_handout_command_replaces_only_the_blocks",
                                 "the lab on the reference (minutes)"),
    "python -m grader scoreboard": ("test_scoreboard.py::test_counts_come_from_the_corpus_and_missing_entries_are_not_run",
                                    "the whole corpus (what the corpus tests grade; .ci/run prints it from their JUnit)"),
    "python -m grader bench --record": ("test_docs.py::test_the_measured_figures_come_from_the_recorded_run",
                                        "grades a class of 30 (minutes)"),
    "python -m grader bench --throughput 5 --answers right/tokens/sliding_window_view,right/tokens/getitems_two_gathers,"
    "right/tokens/memmap_per_call,right/tokens/slow_widening": (
        "test_throughput.py::test_bench_throughput_names_an_answer_it_does_not_know", "five rounds of four answers"),
    "python -m grader batch FOLDER --out results": (
        "test_batch.py::test_batch_grades_each_folder_and_a_hostile_one_is_only_its_own_row", "grades a class"),
    "python -m grader regrade results/ada.json FILES/ada": (
        "test_console_text.py::test_regrade_prints_a_hostile_report_name_inert", "needs a graded report"),
    "python -m grader review FILES... --out review --results gradebook --reference solutions": (
        "test_review.py::test_the_copy_pair_tops_the_similarity_list", "needs a graded class"),
    "python -m grader dry-run CLASS_FOLDER [--slices K] [--roster R] [--out DIR]": (
        "test_dry_runs.py::test_the_plan_is_the_workflows_steps_in_order", "grades a class"),
    ".venv/bin/python -m grader dry-run CLASS_FOLDER --slices 2 [--roster roster.csv]": (
        "test_dry_runs.py::test_the_plan_is_the_workflows_steps_in_order", "grades a class"),
    ".venv/bin/python -m grader dry-run --example-class --slices 2": (
        "test_dry_runs.py::test_the_example_class_is_what_it_says_and_the_review_finds_its_pair",
        "makes the class of six and reviews it; the grading of its six students (about a minute and a half) is "
        "test_class_of_30.py's, on a class of 30"),
    ".venv/bin/python -m grader simulate gradescope solutions --zip build/autograder.zip": (
        "test_hosts.py::test_gradescope_run_autograder_in_a_simulated_container", "the zip in a simulated container"),
    "python -m grader simulate gradescope SUBMISSION [--zip Z] [--user-id N] [--out DIR]": (
        "test_hosts.py::test_gradescope_run_autograder_in_a_simulated_container", "the zip in a simulated container"),
    "python -m grader classroom50 ../lab-c50": ("CI", "README's command with python for .venv/bin/python, run in RUN_HERE; "
                                                "run again it refuses the folder it filled (--force replaces it)"),
    "python -m grader publish": ("CI", "names the command in a sentence; its full form runs in RUN_HERE"),
    "python -m grader gradescope": ("CI", "names the command in a table; its full form runs in RUN_HERE"),
    "python -I": ("CI", "not a command: names the interpreter's isolated mode, which the jail's probes run in"),
}

#: Cannot run on this machine: the reason.
HOST_ONLY = {
    "gh": "GitHub's CLI (named, not run)",
    "gh api": "GitHub's API over the network",
    "gh teacher": "Classroom 50's gh extension, against GitHub",
    "gh student submit": "Classroom 50's gh extension, against GitHub",
    "gh repo create <org>/lab-template --private --source . --push": "creates a repository on GitHub",
    "gh repo create <org>/lab-grader --private --source ../lab-grader --push": "creates a repository on GitHub",
    "gh repo create <org>/lab-<login> --template <org>/lab-template --private": "creates a repository on GitHub",
    "gh repo create <org>/dataloading-lab-template --private --source . --push": "creates a repository on GitHub",
    "sudo": "names the privilege, not a command",
    "sudo ./svc.sh install && sudo ./svc.sh start": "GitHub's self-hosted runner service, on the GPU runner",
    "sudo apt-get install bubblewrap": "installs a system package (.ci/setup does it here, as root)",
    "sudo dnf install bubblewrap": "Fedora's package manager",
    "sudo pacman -S bubblewrap": "Arch's package manager",
}


def documented_commands() -> dict[str, list[str]]:
    """{command as written: the documents that show it}, from every document of :data:`DOCUMENTS`."""
    found: dict[str, list[str]] = {}
    for name in DOCUMENTS:
        text = (REPO / name).read_text(encoding="utf-8")
        for language, info, body in _FENCE.findall(text):
            if language in ("bash", "sh") and "run" not in info.split():
                for line in body.splitlines():
                    command = line.split("  #")[0].strip()
                    if _PROGRAM.match(command):
                        found.setdefault(command, []).append(name)
        for span in _SPAN.findall(_FENCE.sub("", text)):
            if _PROGRAM.match(span.strip()):
                found.setdefault(span.strip(), []).append(name)
    return found


def release_block() -> list[str]:
    """The lines of :data:`RELEASE_BLOCK`'s bash block that run here: all but the one that needs GitHub."""
    (block,) = [body for language, _, body in _FENCE.findall((REPO / RELEASE_BLOCK).read_text()) if language == "bash"]
    return [line for line in block.splitlines() if line.strip() and not line.startswith("gh ")]


def _tests_named(node: str) -> bool:
    file, _, function = node.partition("::")
    path = REPO / file if "/" in file else REPO / "grader" / "tests" / file
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return any(isinstance(n, ast.FunctionDef) and n.name == function for n in tree.body)


def test_every_documented_command_is_accounted_for():
    documented = documented_commands()
    tables = {"RUN_HERE": set(RUN_HERE), "RELEASE_BLOCK": {line.split("  #")[0].strip() for line in release_block()},
              "RUN_ELSEWHERE": set(RUN_ELSEWHERE), "HOST_ONLY": set(HOST_ONLY)}
    unaccounted = [f"{c!r} ({', '.join(sorted(set(d)))})" for c, d in documented.items()
                   if not any(c in table for table in tables.values())]
    assert not unaccounted, ("commands the documents show that no table of this file accounts for: run them in RUN_HERE, "
                             "or name the test in RUN_ELSEWHERE, or say why in HOST_ONLY:\n" + "\n".join(unaccounted))
    stale = [f"{name}: {c!r}" for name, table in tables.items() for c in table
             if c not in documented and name != "RELEASE_BLOCK"]  # the block is read from the document itself
    assert not stale, "table entries no document shows any more (remove them):\n" + "\n".join(stale)
    twice = [c for c in documented if sum(c in table for table in tables.values()) > 1]
    assert not twice, f"in more than one table: {twice}"
    missing = [f"{c!r}: {test}" for c, (test, _) in RUN_ELSEWHERE.items() if test != "CI" and not _tests_named(test)]
    assert not missing, "RUN_ELSEWHERE names tests that do not exist:\n" + "\n".join(missing)


def _filled(command: str, tmp: Path) -> str:
    for placeholder, value in PLACEHOLDERS.items():
        command = re.sub(rf"(?<![\w/.-]){re.escape(placeholder)}(?![\w/-])", value.format(tmp=tmp), command)
    return re.sub(r"^((?:[A-Z][A-Z0-9_]*=\S*\s+)*)python -m ", r"\1.venv/bin/python -m ", command)


@pytest.mark.slow
@pytest.mark.timeout(600)
def test_the_documented_commands_run_as_written_in_a_clean_copy(tmp_path, record_property):
    copy = copy_repository(tmp_path / "lab")
    scratch = tmp_path / "scratch"
    scratch.mkdir()
    env = {**os.environ, "GIT_AUTHOR_NAME": "docs", "GIT_AUTHOR_EMAIL": "docs@localhost", "GIT_COMMITTER_NAME": "docs",
           "GIT_COMMITTER_EMAIL": "docs@localhost", "PYTHONDONTWRITEBYTECODE": "1"}
    env.pop("PYTEST_CURRENT_TEST", None)
    seconds = {}
    for command in RUN_HERE:
        cwd = copy.parent / "lab-template" if command.startswith("git init") else copy
        started = time.monotonic()
        done = subprocess.run(["bash", "-c", _filled(command, scratch)], cwd=cwd, env=env, capture_output=True, text=True,
                              timeout=300)
        seconds[command] = round(time.monotonic() - started, 1)
        assert done.returncode == 0, f"{command!r} exited {done.returncode}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert (scratch / "c50-try" / "result.json").is_file(), "the Classroom 50 try wrote no result.json"
    assert (copy / "build" / "autograder.zip").is_file()
    # hosts.md's release block, as one script: every line but the one that needs GitHub
    script = "set -e\n" + "\n".join(release_block())
    done = subprocess.run(["bash", "-c", script], cwd=copy, env=env, capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, f"{RELEASE_BLOCK}'s release block:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    assert (copy.parent / "dataloading-lab-template" / ".git").is_dir()
    record_property("documented_command_seconds", repr(seconds))
